/**
 * One error type for the whole service. HTTP routes, the webhook and GraphQL (via extensions) all render it as
 * one body (docs/architecture.md, "Errors"): {"error": {status, code, message, details?, requestId}}.
 */

/**
 * The error vocabulary: each code with its HTTP status and the `extensions.code` GraphQL clients see (Apollo's own
 * names where it has one). Every other mapping (status to code, GraphQL code to code, the OpenAPI enum) is derived
 * from this table; where two codes share a status or a GraphQL code, the first one listed is what the bare status or
 * GraphQL code reads as.
 */
export const ERRORS = {
  bad_request: { status: 400, graphql: 'BAD_USER_INPUT' },
  validation_failed: { status: 400, graphql: 'BAD_USER_INPUT' },
  unauthorized: { status: 401, graphql: 'UNAUTHENTICATED' },
  forbidden: { status: 403, graphql: 'FORBIDDEN' },
  not_found: { status: 404, graphql: 'NOT_FOUND' },
  method_not_allowed: { status: 405, graphql: 'METHOD_NOT_ALLOWED' },
  conflict: { status: 409, graphql: 'CONFLICT' },
  payload_too_large: { status: 413, graphql: 'PAYLOAD_TOO_LARGE' },
  unsupported_media_type: { status: 415, graphql: 'UNSUPPORTED_MEDIA_TYPE' },
  rate_limited: { status: 429, graphql: 'RATE_LIMITED' },
  internal: { status: 500, graphql: 'INTERNAL_SERVER_ERROR' },
  unavailable: { status: 503, graphql: 'SERVICE_UNAVAILABLE' },
} as const satisfies Record<string, { status: number; graphql: string }>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

function firstCodeBy<K extends string | number>(key: (code: ErrorCode) => K): ReadonlyMap<K, ErrorCode> {
  const map = new Map<K, ErrorCode>();
  for (const code of ERROR_CODES) if (!map.has(key(code))) map.set(key(code), code);
  return map;
}

/** The code a bare HTTP status reads as (Koa's routers and body parser speak in statuses). */
export const CODE_BY_STATUS = firstCodeBy((code) => ERRORS[code].status as number);
/** The code a GraphQL `extensions.code` reads as. */
export const CODE_BY_GRAPHQL = firstCodeBy((code) => ERRORS[code].graphql as string);

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERRORS[code].status;
  }

  static validation(details: ErrorDetail[]): AppError {
    const message = details.map((d) => `${d.field}: ${d.message}`).join('; ');
    return new AppError('validation_failed', message, details);
  }

  static notFound(what: string, id?: string): AppError {
    return new AppError('not_found', id ? `${what} '${id}' was not found` : `${what} was not found`);
  }
}

export interface ErrorBody {
  error: {
    status: number;
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
    requestId?: string;
  };
}
