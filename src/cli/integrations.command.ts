import { adminCommand, required } from './command.js';
import { connectCustomIntegration, customWebhookPath, presentCustomIntegration } from '../modules/integration/index.js';
import { requireBusiness } from './credentials.command.js';

export const connectCustomCommand = adminCommand({
  usage: 'connect-custom --business BUS_ID',
  summary: 'Connect the Custom order webhook (prints its secret once; run again to rotate it)',
  async run(values, em) {
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
});
