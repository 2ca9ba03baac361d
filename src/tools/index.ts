/** `@svc/agent-sdk/tools`: reserved entries (spec section 9). */
import { notImplemented } from '../client/reserved.js';

/** Reserved. */
export function tool(..._args: unknown[]): never {
  return notImplemented('tool()');
}

/** Reserved. */
export function createSdkMcpServer(..._args: unknown[]): never {
  return notImplemented('createSdkMcpServer()');
}
