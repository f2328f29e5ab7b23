/** RFC 6749 section 5.2 (and RFC 6750 / 7009 / 7662) error codes, answered as {"error", "error_description"}. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'unsupported_token_type'
  | 'access_denied'
  | 'server_error';

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  unsupported_token_type: 400,
  access_denied: 403,
  server_error: 500,
};

export class OAuthError extends Error {
  readonly status: number;
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
    this.status = STATUS[error];
  }

  body() {
    return { error: this.error, error_description: this.description };
  }
}
