import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * The route a request matched, as its pattern (`/api/v2/conversations/:id/stream`): what logs and metrics
 * name, so no capability id of a URL is ever written and metrics keep one series per route.
 */
export const routeOf = (req: FastifyRequest) => req.routeOptions.url ?? '(no route)';

/**
 * Fastify's request lines, as the service writes them: one `info` line per answered request (request id,
 * method, route pattern, status, duration in ms) and, at `debug`, each request as it arrives with the client's
 * address (through `--trust-proxy`). Never the raw URL, nor a header: a client may put a token in any header
 * (the fuzz suites do), so no header value is written at any level.
 */
export class RequestLog extends LogController {
  override incomingRequest(req: FastifyRequest) {
    req.log.debug({ method: req.method, route: routeOf(req), ip: req.ip }, 'request received');
  }

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply) {
    const line = {
      method: req.method,
      route: routeOf(req),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(error && { err: error }),
    };
    const message = `${req.method} ${line.route} ${line.status}`;
    if (error) reply.log.error(line, message);
    else reply.log.info(line, message);
  }

  /** The completed line names the request already (with `(no route)`), without its URL. */
  override routeNotFound() {}
}
