import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export default function trainingRoutes(_app: FastifyInstance, _ctx: AppContext) {}
