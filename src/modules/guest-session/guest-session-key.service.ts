import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RESUME_DAYS } from '../submission/index.js';
import { ReloadingCache } from '../../kit/signals/reloading.cache.js';
import { GuestSessionKey } from './guest-session-key.entity.js';
import { ensureActiveKey, rotateKey } from '../../kit/keys/rotating-key.service.js';

/** How long a process trusts its copy of the keys, and how often an unknown `kid` may trigger a reload. */
const KEYS_TTL_MS = 60_000;
const UNKNOWN_KID_RELOAD_MS = 1_000;
/** A retired key verifies for as long as a cookie it signed may live. */
const RETIRED_KEY_GRACE_MS = RESUME_DAYS * 86_400_000;

const newKey = () => ({ kid: randomBytes(12).toString('base64url'), secret: randomBytes(32).toString('base64url') });

/** Makes a new active guest-session key and retires the previous one(s). */
export const rotateGuestSessionKey = (em: EntityManager): Promise<{ kid: string; retired: string[] }> => rotateKey(em, GuestSessionKey, newKey());

export interface SessionKey {
  kid: string;
  /**
   * A KeyObject, made once per load: given a Buffer, every HMAC would first check, the slow way, whether it is a
   * KeyObject or a CryptoKey (on every page a guest loads or posts).
   */
  key: KeyObject;
}

/**
 * This process's copy of the keys: the active one signs, it and the retired ones still in their grace verify.
 * Reloaded every minute (another process may have rotated) and on an unknown `kid`, at most once a second (a forged
 * cookie's made-up kid costs no more than that).
 */
export class GuestSessionKeys {
  private readonly keys = new ReloadingCache(() => this.load(), KEYS_TTL_MS, UNKNOWN_KID_RELOAD_MS);

  constructor(private readonly rootEm: EntityManager) {}

  async signing(): Promise<SessionKey> {
    return (await this.keys.get()).signer;
  }

  /** The key named `kid`, or undefined for one never made or retired longer ago than a cookie lives. */
  async verifying(kid: string): Promise<KeyObject | undefined> {
    return (await this.keys.get()).byKid.get(kid) ?? (await this.keys.forced())?.byKid.get(kid);
  }

  private async load() {
    const since = new Date(Date.now() - RETIRED_KEY_GRACE_MS);
    const find = () =>
      this.rootEm
        .fork()
        .find(GuestSessionKey, { $or: [{ active: true }, { retiredAt: { $gt: since } }] }, { populate: ['secret'], orderBy: { createdAt: 'desc' } });
    let rows = await find();
    if (!rows.some((r) => r.active)) {
      await ensureActiveKey(this.rootEm, GuestSessionKey, newKey);
      rows = await find();
    }
    const active = rows.find((r) => r.active)!;
    const byKid = new Map(rows.map((r) => [r.kid, createSecretKey(Buffer.from(r.secret, 'base64url'))]));
    return { signer: { kid: active.kid, key: byKid.get(active.kid)! }, byKid };
  }
}
