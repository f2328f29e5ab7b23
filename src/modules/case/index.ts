/** The case module's door: what other modules and the doors use of it. Its other files are its own. */
export { CaseMessageResolver } from './case-message.resolver.js';
export { CaseOutboxTask } from './case-outbox.task.js';
export type { CaseSenders } from './case-outbox.task.js';
export { recoverCasesFor, recoveryMayFollow } from './case-recovery.service.js';
export { CASE_WORK_CHANNEL, nextCaseJobDue, requeueUnsentCaseJobs } from './case.repo.js';
export { CaseResolver } from './case.resolver.js';
export { caseMayOpen, openCaseFor, openCaseForAnalysis } from './case.service.js';
export { attachHeldSms, dropHeldSms, listHeldSms, receiveGuestSms, stopGuestSms } from './inbound-sms.service.js';
export { OfferResolver } from './offer.resolver.js';
export { ReplyTemplateResolver } from './reply-template.resolver.js';
