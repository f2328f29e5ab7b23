import { Business } from '../modules/business/business.entity.js';
import { BusinessLogo } from '../modules/business/business-logo.entity.js';
import { User } from '../modules/user/user.entity.js';
import { Membership } from '../modules/user/membership.entity.js';
import { Invitation } from '../modules/user/invitation.entity.js';
import { AccountMail } from '../modules/user/account-mail.entity.js';
import { Location } from '../modules/location/location.entity.js';
import { Metric } from '../modules/metric/metric.entity.js';
import { Survey } from '../modules/survey/survey.entity.js';
import { SurveyStep } from '../modules/survey/survey-step.entity.js';
import { Submission } from '../modules/submission/submission.entity.js';
import { MenuItem } from '../modules/menu/menu-item.entity.js';
import { Order } from '../modules/order/order.entity.js';
import { OrderItem } from '../modules/order/order-item.entity.js';
import { Credential } from '../modules/oauth/credential.entity.js';
import { CustomIntegration } from '../modules/integration/custom-integration.entity.js';
import { Webhook } from '../modules/webhook/webhook.entity.js';
import { Event } from '../modules/event/event.entity.js';
import { EventSubscriber } from '../modules/event/event-subscriber.entity.js';
import { WebhookDelivery } from '../modules/webhook/webhook-delivery.entity.js';
import { AnalyticsMenuRollup, AnalyticsRollup } from '../modules/analytics/analytics-rollup.entity.js';
import { FeedbackFlow } from '../modules/flow/feedback-flow.entity.js';
import { FeedbackRequest } from '../modules/flow/feedback-request.entity.js';
import { FeedbackSuppression } from '../modules/flow/feedback-suppression.entity.js';
import { SigningKey } from '../modules/oauth/signing-key.entity.js';
import { OAuthToken } from '../modules/oauth/oauth-token.entity.js';
import { AuthorizationCode } from '../modules/oauth/authorization-code.entity.js';
import { SignInThrottle } from '../modules/oauth/sign-in-throttle.entity.js';
import { AlertRule } from '../modules/alert/alert-rule.entity.js';
import { AlertRecipient } from '../modules/alert/alert-recipient.entity.js';
import { GuestCase } from '../modules/case/case.entity.js';
import { CaseMessage } from '../modules/case/case-message.entity.js';
import { CaseAlert } from '../modules/case/case-alert.entity.js';
import { Offer } from '../modules/case/offer.entity.js';
import { ReplyTemplate } from '../modules/case/reply-template.entity.js';
import { HeldSms } from '../modules/case/held-sms.entity.js';
import { GuestSessionKey } from '../modules/guest-session/guest-session-key.entity.js';
import { SendingTally } from '../modules/sending/sending-tally.entity.js';
import { DevOutboxMessage } from '../modules/dev-outbox/dev-outbox.entity.js';
import { AnswerAnalysis } from '../modules/submission/answer-analysis.entity.js';
import { AnswerTheme } from '../modules/submission/answer-theme.entity.js';
import { AnalyticsThemeRollup, AnalyticsThemeWordRollup } from '../modules/theme-rollup/theme-rollup.entity.js';
import { BusinessThemeSettings } from '../modules/text/theme-settings.entity.js';
import { TextAnalysisJob } from '../modules/text/text-analysis-job.entity.js';

/** Every table of the service: the ORM is given this explicit list (no folder scanning at start-up). */
export const entities = [
  Business,
  BusinessLogo,
  User,
  Membership,
  Location,
  Metric,
  Survey,
  SurveyStep,
  Submission,
  MenuItem,
  Order,
  OrderItem,
  Credential,
  CustomIntegration,
  Webhook,
  Event,
  EventSubscriber,
  WebhookDelivery,
  AnalyticsRollup,
  AnalyticsMenuRollup,
  FeedbackFlow,
  FeedbackRequest,
  FeedbackSuppression,
  SigningKey,
  OAuthToken,
  AuthorizationCode,
  SignInThrottle,
  GuestSessionKey,
  AlertRule,
  AlertRecipient,
  GuestCase,
  CaseMessage,
  CaseAlert,
  Offer,
  ReplyTemplate,
  HeldSms,
  Invitation,
  AccountMail,
  SendingTally,
  DevOutboxMessage,
  AnswerAnalysis,
  AnswerTheme,
  AnalyticsThemeRollup,
  AnalyticsThemeWordRollup,
  BusinessThemeSettings,
  TextAnalysisJob,
];
