import { randomBytes } from 'node:crypto';
import type { AdminCommand } from './command.js';
import { createUser, presentUser } from '../modules/user/user.service.js';
import { createBusiness } from '../modules/business/business.service.js';
import { presentBusiness } from '../modules/business/business.resolver.js';
import { createCredential, presentCredential } from '../modules/credential/credential.service.js';
import { connectCustomIntegration } from '../modules/integration/custom-integration.service.js';
import { Survey } from '../modules/survey/survey.entity.js';
import { SurveyStep } from '../modules/survey/survey-step.entity.js';
import { surveyUrl } from '../modules/survey/survey-link.js';
import { Metric } from '../modules/metric/metric.entity.js';
import { Location } from '../modules/location/location.entity.js';
import { loadConfig } from '../config.js';

/** Everything a newcomer needs to try the APIs at once, printed with the secrets they will need. */
export const demoCommand: AdminCommand = {
  name: 'demo',
  summary: 'Create a demo user, business, survey with metric steps, credential and custom integration',
  usage: 'demo',
  options: {},
  async run(_values, orm) {
    const em = orm.em.fork();
    const config = loadConfig();
    const suffix = randomBytes(3).toString('hex');
    const password = randomBytes(12).toString('base64url');
    const user = await createUser(em, { email: `demo-${suffix}@example.com`, password, name: 'Demo Owner' });
    const { business } = await createBusiness(em, { name: `Demo Bistro ${suffix}`, owner: user.id, country: 'PK' });

    const { survey, metrics, location } = await em.transactional(async (tx) => {
      const metrics = ['Food quality', 'Service', 'Ambiance'].map((name) => tx.create(Metric, { business: business.id, name }));
      const survey = tx.create(Survey, { business: business.id, name: 'How was your visit?', status: 'active' });
      tx.create(SurveyStep, {
        business: business.id,
        survey: survey.id,
        position: 0,
        type: 'metrics',
        required: true,
        content: { title: 'Rate your experience' },
        metricIds: metrics.map((m) => m.id),
      });
      tx.create(SurveyStep, {
        business: business.id,
        survey: survey.id,
        position: 1,
        type: 'text',
        content: { title: 'Anything else you would like to tell us?' },
        inputType: 'textarea',
      });
      const location = tx.create(Location, { business: business.id, name: 'Main Street', metadata: { branchCode: 'MAIN-01' } });
      return { survey, metrics, location };
    });

    const { credential, clientSecret } = await createCredential(em, {
      business: business.id,
      name: 'Demo app',
      validRedirectUris: ['http://localhost:3000/callback'],
      createdBy: user.id,
    });
    const { secret } = await connectCustomIntegration(em, business.id);
    return {
      user: { ...presentUser(user), password },
      business: presentBusiness(business),
      survey: { id: survey.id, name: survey.name, metrics: metrics.map((m) => ({ id: m.id, name: m.name })) },
      location: { id: location.id, name: location.name, metadata: location.metadata },
      credential: { ...presentCredential(credential), clientSecret },
      customIntegration: { secret, webhookUrl: `${config.publicUrl}/webhooks/custom/${business.id}` },
      surveyLink: `${surveyUrl(config.surveyUrl, business.id, survey.id)}?custom.customOrderId=<externalOrderId>&custom.customLocationId=<externalLocationId>`,
    };
  },
};
