import { createHash } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ReloadingCache } from '../../kit/signals/reloading.cache.js';
import { SigningKey } from './signing-key.entity.js';
import { ACCESS_TOKEN_TTL_S, JWT_ALG } from './oauth.model.js';
import { ensureActiveKey, rotateKey } from '../../kit/keys/rotating-key.service.js';

/** How long a verifier trusts its copy of the key list, and how often an unknown `kid` may trigger a reload. */
const KEYS_TTL_MS = 60_000;
const UNKNOWN_KID_RELOAD_MS = 1_000;
/** A retired key stays published until every token it signed has expired (plus clock leeway). */
const RETIRED_KEY_GRACE_MS = (ACCESS_TOKEN_TTL_S + 5 * 60) * 1000;

async function newKeyPair(): Promise<{ kid: string; publicJwk: JWK; privateJwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair(JWT_ALG, { modulusLength: 2048, extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const privateJwk = await exportJWK(privateKey);
  const kid = createHash('sha256').update(`${publicJwk.n}.${Date.now()}`).digest('base64url').slice(0, 32);
  return { kid, publicJwk: { ...publicJwk, kid, alg: JWT_ALG, use: 'sig' }, privateJwk: { ...privateJwk, kid, alg: JWT_ALG } };
}

/** Makes a new active signing key and retires the previous one(s). */
export async function rotateSigningKey(em: EntityManager): Promise<{ kid: string; retired: string[] }> {
  return rotateKey(em, SigningKey, await newKeyPair());
}

/** Creates the first signing key when there is none. */
export const ensureActiveSigningKey = (em: EntityManager): Promise<void> => ensureActiveKey(em, SigningKey, newKeyPair);

interface PublishedKey {
  kid: string;
  jwk: JWK;
  key: CryptoKey;
}

/**
 * In-process cache of the keys: the active private key for signing, the published public keys for verifying and
 * for /oauth/certs. Reloaded every minute (another process may have rotated) and on an unknown `kid`.
 */
export class KeyStore {
  private readonly published = new ReloadingCache(() => this.loadPublished(), KEYS_TTL_MS, UNKNOWN_KID_RELOAD_MS);
  private readonly signer = new ReloadingCache(() => this.loadSigner(), KEYS_TTL_MS);

  constructor(private readonly rootEm: EntityManager) {}

  private async loadPublished(): Promise<Map<string, PublishedKey>> {
    const em = this.rootEm.fork();
    const since = new Date(Date.now() - RETIRED_KEY_GRACE_MS);
    const rows = await em.find(SigningKey, { $or: [{ active: true }, { retiredAt: { $gt: since } }] }, { orderBy: { createdAt: 'desc' } });
    const map = new Map<string, PublishedKey>();
    for (const row of rows) {
      const jwk = row.publicJwk as JWK;
      map.set(row.kid, { kid: row.kid, jwk, key: (await importJWK(jwk, JWT_ALG)) as CryptoKey });
    }
    return map;
  }

  /** The public key for a `kid`, or undefined for a key we never published (or retired long ago). */
  async verificationKey(kid: string | undefined): Promise<CryptoKey | undefined> {
    if (!kid) return undefined;
    const found = (await this.published.get()).get(kid) ?? (await this.published.forced())?.get(kid);
    return found?.key;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: [...(await this.published.get()).values()].map((k) => k.jwk) };
  }

  signingKey(): Promise<{ kid: string; key: CryptoKey }> {
    return this.signer.get();
  }

  private async loadSigner(): Promise<{ kid: string; key: CryptoKey }> {
    const em = this.rootEm.fork();
    let row = await em.findOne(SigningKey, { active: true }, { populate: ['privateJwk'], orderBy: { createdAt: 'desc' } });
    if (!row) {
      await ensureActiveSigningKey(this.rootEm);
      row = await em.findOneOrFail(SigningKey, { active: true }, { populate: ['privateJwk'], orderBy: { createdAt: 'desc' } });
    }
    return { kid: row.kid, key: (await importJWK(row.privateJwk as JWK, JWT_ALG)) as CryptoKey };
  }

  /** After a rotation in this process: forget the cached keys. */
  reset(): void {
    this.published.reset();
    this.signer.reset();
  }
}
