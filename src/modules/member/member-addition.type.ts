import { createUnionType } from 'type-graphql';
import { MemberType } from './member.type.js';
import { InvitationType } from './invitation.type.js';

/**
 * What adding someone by e-mail made: always an Invitation, whatever the address (the answer says nothing about
 * accounts, and people join by accepting). Member stays in the union so clients that select it still validate.
 */
export const MemberAdditionType = createUnionType({
  name: 'MemberAddition',
  description:
    'Always an Invitation (e-mailed): members join by accepting it, and the answer is the same whether or not the address has an account. Member is kept for clients that select it.',
  types: () => [MemberType, InvitationType] as const,
  resolveType: (value) => ((value as { object?: string }).object === 'invitation' ? InvitationType : MemberType),
});
