import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import workspaces from './workspaces.js';

export interface RouteModule {
  (app: FastifyInstance, ctx: AppContext): void | Promise<void>;
  /** Mount point; `/api/v2` unless set. */
  prefix?: string;
}

/** Every area of the service, one module each. */
export const routeModules: RouteModule[] = [workspaces];
