import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../shared/errors.js';
import { hashSecret, secretMatches } from '../shared/secrets.js';
import { customWebhookAccount } from '../modules/integration/integration.repo.js';

const UNAUTHORIZED_MESSAGE = 'A valid webhook secret is required: Authorization: Bearer <WEBHOOK_SECRET>';
// Compared against when the business has no integration, so every refusal costs the same.
const DUMMY_HASH = hashSecret('no integration');

export const unauthorized = () => new AppError('unauthorized', UNAUTHORIZED_MESSAGE, undefined, { 'WWW-Authenticate': 'Bearer' });

/** The custom webhook's authentication: the business's integration read through the integration module. */
export class WebhookAuth {
  private constructor(private readonly em: EntityManager) {}

  static async create(orm: MikroORM): Promise<WebhookAuth> {
    return new WebhookAuth(orm.em);
  }

  /**
   * What the business's secret is checked against: one indexed SELECT per request (no cache), so a rotated or
   * disconnected secret stops working at once, in every process. Undefined when there is no connected integration.
   */
  async account(business: string): Promise<WebhookAccount | undefined> {
    // One prepared statement on the pool, through no unit of work: nothing a fork of the ORM would isolate.
    return customWebhookAccount(this.em, business);
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

/** A business's connected Custom integration, as customWebhookAccount reads it. */
export interface WebhookAccount {
  secret_hash: string;
  country: string | null;
}
