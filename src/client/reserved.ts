import { NotImplementedError } from './errors.js';

/** Throws the error of a reserved entry (spec section 9), naming it. */
export function notImplemented(entry: string): never {
  throw new NotImplementedError(`${entry} is reserved and not implemented in this version of @svc/agent-sdk.`);
}

/** Reserved. */
export function query(..._args: unknown[]): never {
  return notImplemented('query()');
}

/** Reserved. */
export function hookMatcher(..._args: unknown[]): never {
  return notImplemented('hookMatcher()');
}

/** Reserved: constructing it throws. */
export class HttpTransport {
  constructor(..._args: unknown[]) {
    notImplemented('HttpTransport');
  }
}
