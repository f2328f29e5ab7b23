import { adminCommand } from './command.js';
import { countFailedForNoSender } from '../modules/flow/index.js';

/**
 * `feedback-senders`: which senders feedback requests would use with this environment, and what is missing (a
 * request on a channel without a sender ends `failed` with "no sender configured ..."). Also counts the requests
 * that failed for that reason.
 */
export const feedbackSendersCommand = adminCommand({
  usage: 'feedback-senders',
  summary: 'Show the e-mail and SMS senders of feedback flows, and what is missing',
  async run(_values, em, { feedback }) {
    const email =
      feedback.outbox === 'dev'
        ? { configured: true, via: 'dev-outbox', from: feedback.mailFrom }
        : feedback.smtpUrl
          ? { configured: true, via: 'smtp', from: feedback.mailFrom }
          : { configured: false, missing: 'SMTP_URL' };
    const sms = feedback.twilio
      ? { configured: true, via: 'twilio', from: feedback.twilio.from }
      : feedback.smsGatewayUrl
        ? { configured: true, via: 'gateway' }
        : { configured: false, missing: 'TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM, or SMS_GATEWAY_URL' };
    const n = await countFailedForNoSender(em);
    for (const [channel, state] of Object.entries({ email, sms })) {
      if (!state.configured) console.error(`No ${channel} sender: feedback requests by ${channel} end failed. Set ${(state as { missing: string }).missing}.`);
    }
    return {
      data: { email, sms, inboundSms: feedback.twilio ? 'twilio-signature' : feedback.smsInboundSecret ? 'header-secret' : null, failedForNoSender: n },
      object: 'feedback_senders',
    };
  },
});
