import { channelsWithSender, type Config } from './config.js';
import type { Services } from './kit/graphql/context.js';
import { OrderWriter } from './modules/order/index.js';
import { createFeedbackRequests, feedbackMayFollow } from './modules/flow/index.js';
import { caseMayOpen, openCaseFor, recoverCasesFor, recoveryMayFollow } from './modules/case/index.js';
import { SendingBudgets } from './modules/sending/index.js';

/**
 * The one composition of the modules' services, from the configuration: the app (createApp), the workers (alone with
 * `npm run worker`, or beside the app) and the admin CLI are each given what it answers, so every start wires the
 * same way. Modules hold no settings of their own: what depends on the configuration or on another module is given here.
 */
export function compose(config: Pick<Config, 'feedback' | 'sending' | 'webhooks'>): Services {
  return {
    // Every order write (both doors, the API's status update) creates the requests of matching feedback flows, and a
    // new order may bring an unhappy guest back (an offer's code, the same guest ordering again: issue 35).
    orders: new OrderWriter({
      step: async (tx, business, order, triggers, now) => {
        await createFeedbackRequests(tx, business, order, triggers, now);
        await recoverCasesFor(tx, business, order, triggers, now);
      },
      check: async (em, business, order, triggers, now) =>
        (await feedbackMayFollow(em, business, order, triggers)) || (await recoveryMayFollow(em, business, order, triggers, now)),
    }),
    // Every completed submission is matched against its business's alert rules: a match opens a case (issue 35).
    completions: { step: openCaseFor, check: caseMayOpen },
    senders: channelsWithSender(config.feedback),
    sending: new SendingBudgets(config.sending),
    webhooks: { allowPrivateNetworks: config.webhooks.allowPrivateNetworks },
  };
}
