import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export default function smsRoutes(_app: FastifyInstance, _ctx: AppContext) {}
