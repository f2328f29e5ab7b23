/** The account module's door: what other modules and the doors use of it. Its other files are its own. */
export { findLink } from './account-link.service.js';
export type { LinkProblem } from './account-link.service.js';
export { acceptInvitation, viewInvitation } from './invitation-accept.service.js';
export { requestPasswordReset, resetPassword } from './password-reset.service.js';
export { PASSWORD_RULE } from './password.rules.js';
export { confirmEmail, resendVerification, signUp, viewConfirmation } from './signup.service.js';
export type { SignUpInput } from './signup.service.js';
