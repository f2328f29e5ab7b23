import type { Pool } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../shared/errors.js';
import { hashSecret, secretMatches } from '../shared/secrets.js';
import { ormPool } from '../kit/orm.pool.js';

const UNAUTHORIZED_MESSAGE = 'A valid webhook secret is required: Authorization: Bearer <WEBHOOK_SECRET>';
// Compared against when the business has no integration, so every refusal costs the same.
const DUMMY_HASH = hashSecret('no integration');

/** Who may post for a business: its country (phone region) and the hash of the current webhook secret. */
const AUTH_SQL = `
select ci.secret_hash, b.country
from custom_integration ci join business b on b.id = ci.business_id
where ci.business_id = $1`;

export const unauthorized = () => new AppError('unauthorized', UNAUTHORIZED_MESSAGE, undefined, { 'WWW-Authenticate': 'Bearer' });

/**
 * The custom webhook's authentication, on the ORM's own `pg` pool with a named prepared statement (the hot path is
 * parsed and planned once per connection, not per request).
 */
export class WebhookAuth {
  private constructor(private readonly pool: Pool) {}

  static async create(orm: MikroORM): Promise<WebhookAuth> {
    return new WebhookAuth(await ormPool(orm.em));
  }

  /**
   * What the business's secret is checked against: one indexed SELECT per request (no cache), so a rotated or
   * disconnected secret stops working at once, in every process. Undefined when there is no connected integration.
   */
  async account(business: string): Promise<WebhookAccount | undefined> {
    const rows = (await this.pool.query({ name: 'custom_webhook_auth', text: AUTH_SQL, values: [business] })).rows as WebhookAccount[];
    return rows[0];
  }

  /**
   * The business's country when `secret` is its current secret; otherwise 401, the same answer whether the business
   * is unknown, has no integration or the secret is wrong.
   */
  verify(account: WebhookAccount | undefined, secret: string | undefined): { country: string | null } {
    const ok = secretMatches(secret ?? '', account?.secret_hash ?? DUMMY_HASH);
    if (!ok || !account || !secret) throw unauthorized();
    return { country: account.country };
  }
}

/** A business's connected Custom integration, as AUTH_SQL reads it. */
export interface WebhookAccount {
  secret_hash: string;
  country: string | null;
}
