import type { AdminCommand } from './command.js';
import { required } from './command.js';
import { connectCustomIntegration, customWebhookPath, presentCustomIntegration } from '../modules/integration/custom-integration.service.js';
import { requireBusiness } from './credentials.command.js';

export const connectCustomCommand: AdminCommand = {
  name: 'connect-custom',
  summary: 'Connect the Custom order webhook (prints its secret once; run again to rotate it)',
  usage: 'connect-custom --business BUS_ID',
  options: { business: { type: 'string' } },
  async run(values, orm) {
    const em = orm.em.fork();
    const business = await requireBusiness(em, required(values, 'business'));
    const { integration, secret, rotated } = await connectCustomIntegration(em, business.id);
    return {
      data: {
        ...presentCustomIntegration(integration),
        secret,
        rotated,
        webhookPath: customWebhookPath(business.id),
      },
      object: 'custom_integration',
    };
  },
};
