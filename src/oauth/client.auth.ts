import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Credential, OAuthError } from '../modules/oauth/index.js';
import { isId } from '../shared/id.js';
import { secretMatches } from '../shared/secrets.js';
import type { FailureLimit } from '../http/rate-limit/rate-limits.js';

export type Params = Record<string, unknown>;

/** A request parameter in the spec's camelCase (JSON) or RFC 6749's snake_case (form) spelling. */
export function param(body: Params, camel: string, snake?: string): string | undefined {
  const value = body[camel] ?? (snake ? body[snake] : undefined);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `${snake ?? camel} must be a single string`);
  return value;
}

export function bodyOf(ctx: Context): Params {
  const body = (ctx.request as unknown as { body?: unknown }).body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Params) : {};
}

/**
 * Client authentication (RFC 6749 2.3.1): HTTP Basic, or clientId/clientSecret (client_id/client_secret) in the body;
 * never both. `clientId` is the credential's client id (its `cred_` id is accepted too). With `failures`, an address
 * with too many failed attempts (for this client id, or in all) is refused (429) before the secret is compared: no
 * guessing at speed, and no lock-out of the client from its own addresses (FailureLimit).
 */
export async function authenticateClient(ctx: Context, em: EntityManager, body: Params, failures?: FailureLimit): Promise<Credential> {
  let clientId = param(body, 'clientId', 'client_id');
  let clientSecret = param(body, 'clientSecret', 'client_secret');
  const header = ctx.get('authorization');
  const basic = /^Basic\s+(\S+)\s*$/i.exec(header);
  const challenge = { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' };
  if (basic) {
    if (clientSecret) throw new OAuthError('invalid_request', 'Use one client authentication method: HTTP Basic or the body, not both');
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials', challenge);
    try {
      const basicId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      if (clientId && clientId !== basicId) throw new OAuthError('invalid_request', 'client_id differs from the HTTP Basic user');
      clientId = basicId;
      clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch (err) {
      if (err instanceof OAuthError) throw err;
      throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials', challenge);
    }
  }
  if (!clientId) throw new OAuthError('invalid_client', 'Client authentication is required (clientId and clientSecret)', challenge);
  const credential = await findClient(em, clientId, { withSecret: true });
  // A public client (no secret stored: the built-in portal, RFC 6749 2.1) identifies itself by its id alone; PKCE
  // guards its codes. A secret sent for it is a confused client: refused like a wrong one.
  if (credential && credential.secretHash === null && !clientSecret && !basic) return credential;
  if (!clientSecret) throw new OAuthError('invalid_client', 'clientSecret is required', challenge);
  const admission = await failures?.admit(clientId, ctx.ip);
  if (admission) ctx.set(admission.headers);
  if (!credential || credential.secretHash === null || !secretMatches(clientSecret, credential.secretHash)) {
    await failures?.failed(clientId, ctx.ip);
    throw new OAuthError('invalid_client', 'Unknown client or wrong client secret', basic ? challenge : {});
  }
  await failures?.succeeded(admission);
  return credential;
}

export async function findClient(em: EntityManager, clientId: string, options: { withSecret?: boolean } = {}): Promise<Credential | null> {
  if (clientId.length > 100) return null;
  const where = isId('credential', clientId) ? { id: clientId } : { clientId };
  return em.findOne(Credential, where, options.withSecret ? { populate: ['secretHash'] } : {});
}
