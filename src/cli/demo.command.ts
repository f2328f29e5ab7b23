import { randomBytes } from 'node:crypto';
import { adminCommand } from './command.js';
import { createUser, presentUser } from '../modules/user/index.js';
import { createBusiness } from '../modules/member/index.js';
import { presentBusiness, setLogo, updateBusiness, logoPath } from '../modules/business/index.js';
import { createCredential, presentCredential } from '../modules/oauth/index.js';
import { connectCustomIntegration, customWebhookPath } from '../modules/integration/index.js';
import { createMetric } from '../modules/metric/index.js';
import { createSurvey, createStep, surveyUrl } from '../modules/survey/index.js';
import { createLocation } from '../modules/location/index.js';
import { DEMO_BRAND_COLOR, DEMO_DISPLAY_NAME, demoLogo } from './demo-brand.js';

/** Everything a newcomer needs to try the APIs at once, printed with the secrets they will need. */
export const demoCommand = adminCommand({
  usage: 'demo',
  summary: 'Create a demo user, business, survey with metric steps, credential and custom integration',
  async run(_values, em, config) {
    const suffix = randomBytes(3).toString('hex');
    const password = randomBytes(12).toString('base64url');
    const user = await createUser(em, { email: `demo-${suffix}@example.com`, password, name: 'Demo Owner' });
    const { business: created } = await createBusiness(em, { name: `Demo Bistro ${suffix}`, owner: user.id, country: 'PK' });
    // The business's face (issue 36): what guests see on the survey pages, in e-mails and SMS.
    await updateBusiness(em, created.id, { displayName: DEMO_DISPLAY_NAME, brandColor: DEMO_BRAND_COLOR, replyTo: `demo-${suffix}@example.com` });
    const business = await setLogo(em, created.id, demoLogo());

    // Through the services, as the API would: inputs checked, an event recorded for each.
    const metrics = [];
    for (const name of ['Food quality', 'Service', 'Ambiance']) metrics.push(await createMetric(em, business.id, { name }));
    const survey = await createSurvey(em, business.id, { name: 'How was your visit?', status: 'active' });
    await createStep(em, business.id, survey.id, {
      type: 'metrics',
      required: true,
      content: { title: 'Rate your experience' },
      metrics: { metrics: metrics.map((m) => m.id) },
    });
    // Rate what you ate (issue 36): shown when the link names an order with dishes, skipped otherwise.
    await createStep(em, business.id, survey.id, { type: 'items', content: { title: 'How was each dish?', scale: '5' } });
    await createStep(em, business.id, survey.id, {
      type: 'text',
      content: { title: 'Anything else you would like to tell us?' },
      inputType: 'textarea',
    });
    const location = await createLocation(em, business.id, { name: 'Main Street', metadata: { branchCode: 'MAIN-01' } });

    const { credential, clientSecret } = await createCredential(em, {
      business: business.id,
      name: 'Demo app',
      validRedirectUris: ['http://localhost:3000/callback'],
      createdBy: user.id,
    });
    const { secret } = await connectCustomIntegration(em, business.id);
    return {
      user: { ...presentUser(user), password },
      business: { ...presentBusiness(business), logoFile: undefined, logoUrl: `${config.surveyUrl}${logoPath(business.id, business.logoFile!)}` },
      survey: { id: survey.id, name: survey.name, metrics: metrics.map((m) => ({ id: m.id, name: m.name })) },
      location: { id: location.id, name: location.name, metadata: location.metadata },
      credential: { ...presentCredential(credential), clientSecret },
      customIntegration: { secret, webhookUrl: `${config.publicUrl}${customWebhookPath(business.id)}` },
      surveyLink: `${surveyUrl(config.surveyUrl, business.id, survey.id)}?custom.customOrderId=<externalOrderId>&custom.customLocationId=<externalLocationId>`,
    };
  },
});
