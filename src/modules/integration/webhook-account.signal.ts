import { announceWritesOf } from '../../kit/signals/signals.js';

/**
 * The order webhook's door keeps each business's secret hash in memory (custom-order.auth.ts): every write to the
 * Custom integrations tells this channel once it commits, whoever makes it (the API, the admin CLI, another process),
 * and every process forgets what it kept. The process that made the change hears it at once (kit/signals/signals.ts).
 */
export const WEBHOOK_ACCOUNTS_CHANNEL = 'webhook_accounts';

announceWritesOf(WEBHOOK_ACCOUNTS_CHANNEL, ['custom_integration']);
