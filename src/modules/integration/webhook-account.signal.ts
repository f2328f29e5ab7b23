import { notifyingTrigger } from '../../kit/signals/notify.trigger.js';

/**
 * The order webhook's door keeps each business's secret hash in memory (custom-order.auth.ts): a write to the
 * Custom integrations notifies this channel at commit, whoever makes it (the API, the admin CLI, another process),
 * and every process forgets what it kept. The process that made the change hears it at once (kit/signals/signals.ts).
 */
export const WEBHOOK_ACCOUNTS_CHANNEL = 'webhook_accounts';

export const webhookAccountsTrigger = notifyingTrigger('webhook_accounts_changed', WEBHOOK_ACCOUNTS_CHANNEL);
