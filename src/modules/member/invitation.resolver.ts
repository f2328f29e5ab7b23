import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/index.js';
import { InvitationType } from './invitation.type.js';
import * as inputs from './invitation.inputs.js';
import * as invitations from './invitation.service.js';

@Resolver(() => InvitationType)
export class InvitationResolver extends OwnedCrudResolver(InvitationType, inputs, invitations.crud, {
  names: ['invitation', 'invitations'],
  scope: 'members',
  descriptions: {
    list: 'Pending invitations (expired ones too, until deleted).',
    create: 'Invites an e-mail address with a role: the link e-mailed to it (valid 7 days) signs up or signs in and joins. Owners only.',
    delete: 'Revokes an invitation: its link stops working. Owners only.',
  },
}) {}
