// RFC 6750 2.1: "Bearer" (any case), one or more spaces, then a b64token. Access tokens (JWTs) and webhook secrets
// (base64url) both fit it.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)\s*$/i;

/** The token of an `Authorization: Bearer <token>` header; undefined when the header is absent or has another form. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header)?.[1] : undefined;
}
