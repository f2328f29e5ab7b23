/**
 * One error type for the whole service. HTTP routes, the webhook and GraphQL (via extensions) all render it as
 * DESIGN.md's body: {"error": {status, code, message, details?, requestId}}.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

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
    this.status = ERROR_STATUS[code];
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

export function errorBody(err: AppError, requestId?: string): ErrorBody {
  return {
    error: {
      status: err.status,
      code: err.code,
      message: err.message,
      ...(err.details?.length ? { details: err.details } : {}),
      requestId,
    },
  };
}
