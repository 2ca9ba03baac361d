import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export default function payPageRoutes(_app: FastifyInstance, _ctx: AppContext) {}
