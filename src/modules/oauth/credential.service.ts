import type { EntityManager } from '@mikro-orm/postgresql';
import { Checks } from '../../shared/validation.js';
import { generateSecret, hashSecret } from '../../shared/secrets.js';
import { recordEvent, deleteRecorded, updateRecorded } from '../event/index.js';
import { findOwned } from '../../kit/resource/resource.js';
import { Credential } from './credential.entity.js';
import { randomBytes } from 'node:crypto';
import { revokeTokens } from './revocation.service.js';
import { SCOPES, isScope, type Scope } from '../../auth/scopes.js';
import { Membership } from '../user/index.js';
import { Business } from '../business/index.js';
import { scopesForRole } from '../../auth/roles.js';

export interface NewCredential {
  credential: Credential;
  /** Shown once, in the creation response; only its hash is stored. */
  clientSecret: string;
}

/** Redirect URIs must be absolute http(s) URLs without a fragment (RFC 6749 3.1.2); http only for loopback. */
function checkRedirectUris(checks: Checks, uris: unknown): void {
  if (!Array.isArray(uris) || uris.length === 0) return checks.fail('validRedirectUris', 'must list at least one redirect URI');
  uris.forEach((uri, i) => {
    const field = `validRedirectUris[${i}]`;
    let url: URL;
    try {
      url = new URL(String(uri));
    } catch {
      checks.fail(field, `'${uri}' is not an absolute URL`);
      return;
    }
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      checks.fail(field, 'must use https (http is allowed for localhost only)');
    } else if (url.hash) {
      checks.fail(field, 'must not contain a fragment (#...)');
    }
  });
}

function checkName(checks: Checks, raw: string | null | undefined): string {
  const name = raw?.trim() ?? '';
  if (!name || name.length > 200) checks.fail('name', 'must be 1 to 200 characters');
  return name;
}

/**
 * What a new credential may mint at most: the scopes asked for (by default all of `within`), never beyond `within`,
 * the creating token's scopes; a scope beyond it, or no scope at all, is a 400 naming the field.
 */
function credentialScopes(checks: Checks, asked: readonly string[] | null | undefined, within: ReadonlySet<Scope>): Scope[] {
  if (asked == null) return SCOPES.filter((scope) => within.has(scope));
  if (!asked.length) checks.fail('scopes', "must list at least one scope, or be left out for the creating token's scopes");
  const unknown = asked.filter((scope) => !isScope(scope));
  if (unknown.length) checks.fail('scopes', `not scopes: ${unknown.join(', ')}`);
  const beyond = asked.filter((scope) => isScope(scope) && !within.has(scope));
  if (beyond.length) checks.fail('scopes', `beyond the scopes of the token that creates it: ${beyond.join(', ')}`);
  return SCOPES.filter((scope) => asked.includes(scope));
}

/** Without a token (the admin CLI): what the creator's role allows now. */
async function roleScopes(em: EntityManager, business: string, user: string): Promise<ReadonlySet<Scope>> {
  const membership = await em.findOne(Membership, { business, user }, { fields: ['role'] });
  return new Set(membership ? scopesForRole(membership.role) : []);
}

/**
 * `within`: the scopes of the token creating it (the API), which the credential never exceeds; left out (the admin
 * CLI), what the creator's role allows.
 */
export async function createCredential(
  em: EntityManager,
  input: {
    business: string;
    name: string;
    validRedirectUris: string[];
    createdBy: string;
    scopes?: readonly string[] | null;
    requirePkce?: boolean | null;
    within?: ReadonlySet<Scope>;
  },
): Promise<NewCredential> {
  const checks = new Checks();
  const name = checkName(checks, input.name);
  checkRedirectUris(checks, input.validRedirectUris);
  const scopes = credentialScopes(checks, input.scopes, input.within ?? (await roleScopes(em, input.business, input.createdBy)));
  checks.throwIfAny();

  const clientSecret = generateSecret('cs_');
  const credential = await em.transactional(async (tx) => {
    const created = tx.create(Credential, {
      business: input.business,
      name,
      clientId: randomBytes(16).toString('hex'),
      secretHash: hashSecret(clientSecret),
      validRedirectUris: [...new Set(input.validRedirectUris)],
      createdBy: input.createdBy,
      scopes,
      requirePkce: input.requirePkce ?? false,
    });
    recordEvent(tx, input.business, 'credential.created', presentCredential(created));
    return created;
  });
  return { credential, clientSecret };
}

/** The public shape: never the secret or its hash. */
export function presentCredential(credential: Credential) {
  return {
    id: credential.id,
    object: 'credential',
    business: credential.business,
    name: credential.name,
    clientId: credential.clientId,
    validRedirectUris: credential.validRedirectUris,
    createdBy: credential.createdBy,
    scopes: credential.scopes,
    requirePkce: credential.requirePkce,
    createdAt: credential.createdAt,
    updatedAt: credential.updatedAt,
  };
}

/**
 * Its name, its redirect URIs and whether it is held to OAuth 2.1 (requirePkce). Not its scopes: they were bounded by
 * the token that created it, and a later token may hold others. Codes already issued keep the redirect URI they were
 * issued for; a credential newly held to PKCE refuses the codes it got without (grant.service.ts).
 */
export function updateCredential(
  em: EntityManager,
  business: string,
  id: string,
  input: { name?: string | null; validRedirectUris?: string[] | null; requirePkce?: boolean | null },
) {
  return updateRecorded(em, recorded, business, id, (credential) => {
    const checks = new Checks();
    const name = input.name != null ? checkName(checks, input.name) : credential.name;
    if (input.validRedirectUris != null) checkRedirectUris(checks, input.validRedirectUris);
    checks.throwIfAny();
    credential.name = name;
    if (input.validRedirectUris != null) credential.validRedirectUris = [...new Set(input.validRedirectUris)];
    if (input.requirePkce != null) credential.requirePkce = input.requirePkce;
  });
}

/**
 * Revokes every token the credential minted (this process forgets them at once, others within seconds), then deletes
 * it; its token rows and pending authorization codes go with it (foreign keys cascade).
 */
export function deleteCredential(em: EntityManager, business: string, id: string): Promise<string> {
  return deleteRecorded(em, recorded, business, id, async (credential, tx) => {
    await revokeTokens(tx, { business, credential: credential.id });
    await tx.nativeDelete(Credential, { id: credential.id });
  });
}

/**
 * A new client secret, answered once: the old one stops authenticating at once, and the tokens it minted alone
 * (client_credentials, acting for the credential's creator) are revoked. What members granted through the client
 * stands: refreshing it now takes the new secret.
 */
export async function rotateCredentialSecret(em: EntityManager, business: string, id: string) {
  const clientSecret = generateSecret('cs_');
  const credential = await updateRecorded(em, recorded, business, id, async (row, tx) => {
    row.secretHash = hashSecret(clientSecret);
    await revokeTokens(tx, { business, credential: row.id, origin: 'secret' });
  });
  return { credential, clientSecret };
}

/** A credential whose client_credentials tokens act for its creator, with its business's name. */
export interface ActingCredential {
  id: string;
  name: string;
  clientId: string;
  business: { id: string; name: string };
}

/**
 * The credentials `user` created whose client_credentials tokens act for them: those of the businesses they are still
 * a member of (a token acts for its credential's creator only while they are one), oldest first.
 */
export async function credentialsActingFor(em: EntityManager, user: string): Promise<ActingCredential[]> {
  const memberships = await em.find(Membership, { user }, { fields: ['business'] });
  if (!memberships.length) return [];
  const credentials = await em.find(
    Credential,
    { createdBy: user, business: { $in: memberships.map((m) => m.business) } },
    { fields: ['name', 'clientId', 'business'], orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const businesses = credentials.length
    ? await em.find(Business, { id: { $in: [...new Set(credentials.map((c) => c.business!))] } }, { fields: ['name'] })
    : [];
  const nameOf = new Map(businesses.map((b) => [b.id, b.name]));
  return credentials.map((c) => ({
    id: c.id,
    name: c.name,
    clientId: c.clientId,
    business: { id: c.business!, name: nameOf.get(c.business!) ?? c.business! },
  }));
}

export const findCredential = (em: EntityManager, business: string, id: string, lock = false) =>
  findOwned(em, Credential, { kind: 'credential', label: 'Credential', business, id, lock });

/** The recipe's view of a credential (event.service.ts's updateRecorded, deleteRecorded): `credential.*` events. */
const recorded = { resource: 'credential', find: findCredential, present: presentCredential };
