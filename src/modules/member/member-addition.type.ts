import { createUnionType } from 'type-graphql';
import { MemberType } from './member.type.js';
import { InvitationType } from './invitation.type.js';

/** What adding someone by e-mail made: a member (they had an account) or an invitation (they did not). */
export const MemberAdditionType = createUnionType({
  name: 'MemberAddition',
  description: 'A Member when the address has an account, an Invitation (e-mailed) when it has none.',
  types: () => [MemberType, InvitationType] as const,
  resolveType: (value) => ((value as { object?: string }).object === 'invitation' ? InvitationType : MemberType),
});
