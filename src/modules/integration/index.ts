/** The integration module's door: what other modules and the doors use of it. Its other files are its own. */
export { connectCustomIntegration, customWebhookPath, presentCustomIntegration } from './custom-integration.service.js';
export { customWebhookAccount } from './integration.repo.js';
export { CustomIntegrationResolver } from './integration.resolver.js';
export { WEBHOOK_ACCOUNTS_CHANNEL } from './webhook-account.signal.js';
