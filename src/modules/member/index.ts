/** The member module's door: what other modules and the doors use of it. Its other files are its own. */
export { InvitationResolver } from './invitation.resolver.js';
export { presentInvitation } from './invitation.service.js';
export { MemberResolver } from './member.resolver.js';
export { createBusiness, createMember, deleteMember, presentMember } from './member.service.js';
