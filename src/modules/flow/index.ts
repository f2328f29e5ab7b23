/** The flow module's door: what other modules and the doors use of it. Its other files are its own. */
export { FeedbackFlowResolver, FeedbackRequestResolver } from './feedback-flow.resolver.js';
export { contactHash } from './feedback-flow.rules.js';
export { createFeedbackRequests, feedbackMayFollow } from './feedback-request-creation.service.js';
export {
  businessOfLink,
  businessesTextingSince,
  openRequest,
  settleForOrder,
  stopFromPhone,
  suppressionOf,
  unsubscribeByToken,
} from './feedback-request.service.js';
export { FeedbackRequestTask } from './feedback-request.task.js';
export type { FeedbackSenders } from './feedback-request.task.js';
export { FEEDBACK_WORK_CHANNEL, countFailedForNoSender, nextRequestDue, requeueUnsentRequests } from './flow.repo.js';
