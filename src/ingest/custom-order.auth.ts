import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { AppError } from '../shared/errors.js';
import { hashSecret, secretMatches } from '../shared/secrets.js';
import { customWebhookAccount, WEBHOOK_ACCOUNTS_CHANNEL } from '../modules/integration/index.js';
import { SURVEY_PAGES_CHANNEL } from '../modules/business/index.js';
import { NotifiedMemo } from '../kit/signals/notified.memo.js';

const UNAUTHORIZED_MESSAGE = 'A valid webhook secret is required: Authorization: Bearer <WEBHOOK_SECRET>';
// Compared against when the business has no integration, so every refusal costs the same.
const DUMMY_HASH = hashSecret('no integration');

export const unauthorized = () => new AppError('unauthorized', UNAUTHORIZED_MESSAGE, undefined, { 'WWW-Authenticate': 'Bearer' });

/** The custom webhook's authentication: the business's integration read through the integration module. */
export class WebhookAuth {
  private constructor(private readonly memo: NotifiedMemo) {}

  static async create(orm: MikroORM, logger: Logger): Promise<WebhookAuth> {
    // A rotated or disconnected secret notifies webhook_accounts; a business's country or staffKey changing, survey_pages.
    const memo = new NotifiedMemo(orm, logger, { channels: [WEBHOOK_ACCOUNTS_CHANNEL, SURVEY_PAGES_CHANNEL], name: 'webhook account memo' });
    await memo.start();
    return new WebhookAuth(memo);
  }

  /**
   * What the business's secret is checked against, kept in memory until the business's integration or the business
   * changes (a notification at their commit: at once in the process that made the change, within milliseconds in the
   * others). Read from the primary, never a replica. Undefined when there is no connected integration.
   */
  account(business: string): Promise<WebhookAccount | undefined> {
    return this.memo.get(`account:${business}`, (em) => customWebhookAccount(em, business));
  }

  stop() {
    return this.memo.stop();
  }

  /**
   * The business's country and staffKey when `secret` is its current secret; otherwise 401, the same answer whether
   * the business is unknown, has no integration or the secret is wrong.
   */
  verify(account: WebhookAccount | undefined, secret: string | undefined): { country: string | null; staffKey: string } {
    const ok = secretMatches(secret ?? '', account?.secret_hash ?? DUMMY_HASH);
    if (!ok || !account || !secret) throw unauthorized();
    return { country: account.country, staffKey: account.staff_key };
  }
}

/** A business's connected Custom integration, as customWebhookAccount reads it. */
export interface WebhookAccount {
  secret_hash: string;
  country: string | null;
  staff_key: string;
}
