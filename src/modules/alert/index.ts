/** The alert module's door: what other modules and the doors use of it. Its other files are its own. */
export { AlertConfirmationTask } from './alert-confirmation.task.js';
export { AlertRecipient } from './alert-recipient.entity.js';
export { answerConsent, confirmedOutside, consentOf, consentUrl, declineByStop, recipientKey } from './alert-recipient.service.js';
export type { Consent } from './alert-recipient.service.js';
export { ALERT_SEVERITIES, AlertRule } from './alert-rule.entity.js';
export type { AlertSeverity } from './alert-rule.entity.js';
export { AlertRuleResolver } from './alert-rule.resolver.js';
export { matchRules } from './alert-rule.rules.js';
export type { MatchedAnswers, RuleMatch } from './alert-rule.rules.js';
export { enabledAlertRules } from './alert-rule.service.js';
export { ALERT_CONFIRMATIONS_CHANNEL, nextConfirmationDue, requeueUnsentConfirmations } from './alert.repo.js';
