/** The user module's door: what other modules and the doors use of it. Its other files are its own. */
export { AccountMail } from './account-mail.entity.js';
export type { AccountMailKind } from './account-mail.entity.js';
export { ACCOUNT_MAIL_CHANNEL, dropUnsentInvitationMail, nextAccountMailDue, requeueUnsentAccountMail } from './account-mail.repo.js';
export { queueAccountMail } from './account-mail.service.js';
export { AccountMailTask, TOKEN_PREFIX } from './account-mail.task.js';
export { INVITATION_TTL_MS, Invitation } from './invitation.entity.js';
export { MEMBERSHIP_ROLES, Membership } from './membership.entity.js';
export type { MembershipRole } from './membership.entity.js';
export { User } from './user.entity.js';
export { EMAIL, createUser, normaliseEmail, presentUser } from './user.service.js';
