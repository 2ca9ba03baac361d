/**
 * One error hierarchy for every failure of the client (spec section 7). Each class sets `name` itself so
 * the name survives minification.
 */

/** Base class of every error the library throws. */
export class SvcSdkError extends Error {
  override name = 'SvcSdkError';
}

/** The service answered with an error status. `message` is the service's `detail`. */
export class ApiError extends SvcSdkError {
  override name = 'ApiError';

  constructor(
    readonly status: number,
    message: string,
    /** The parsed error body (`{ detail }`), or the raw text when it was not JSON. */
    readonly body: unknown,
    readonly headers?: Headers,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}

export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}

export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}

export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

export class ConflictError extends ApiError {
  override name = 'ConflictError';
}

/** 428: the request needs an answer first; SMS sign-in near its daily cap asks for the operator's challenge. */
export class PreconditionRequiredError extends ApiError {
  override name = 'PreconditionRequiredError';
}

export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}

export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}

/** The request never got an answer: DNS, refused or reset connection, a stream cut mid-body. */
export class ApiConnectionError extends SvcSdkError {
  override name = 'ApiConnectionError';

  constructor(message = 'connection error', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within `timeoutMs`, or a turn silent for longer than `idleTimeoutMs`. */
export class ApiTimeoutError extends ApiConnectionError {
  override name = 'ApiTimeoutError';

  constructor(message = 'request timed out') {
    super(message);
  }
}

/** The caller's `AbortSignal` aborted the call. */
export class AbortError extends SvcSdkError {
  override name = 'AbortError';

  constructor(message = 'request aborted') {
    super(message);
  }
}

/** A reserved entry of the library (spec section 9). */
export class NotImplementedError extends SvcSdkError {
  override name = 'NotImplementedError';
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  428: PreconditionRequiredError,
  429: RateLimitError,
};

const SNIPPET = 200;

/**
 * The error for a failed response. The body is read as text first, so a proxy's HTML page or a body cut
 * short still gives a readable message (`HTTP 502: <first 200 characters>`).
 */
export async function errorFromResponse(res: Response): Promise<ApiError> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    // A truncated body: the status alone still says what happened.
  }
  let body: unknown = text;
  let message: string | undefined;
  try {
    body = JSON.parse(text);
    const detail = (body as { detail?: unknown } | null)?.detail;
    if (typeof detail === 'string') message = detail;
  } catch {
    // Not JSON: keep the text.
  }
  message ??= text ? `HTTP ${res.status}: ${text.slice(0, SNIPPET)}` : `HTTP ${res.status} ${res.statusText}`.trim();
  const ErrorClass = BY_STATUS[res.status] ?? (res.status >= 500 ? InternalServerError : ApiError);
  return new ErrorClass(res.status, message, body, res.headers);
}
