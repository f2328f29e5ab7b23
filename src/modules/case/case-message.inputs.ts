import { Field, InputType } from 'type-graphql';
import { StringFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { CaseMessageType } from './case-message.type.js';
import { MAX_MESSAGE_BODY } from './case-message.rules.js';

@InputType('CreateCaseMessageInput')
export class CreateCaseMessageInput {
  @Field({
    description: `The text the guest receives (at most ${MAX_MESSAGE_BODY.email} characters; ${MAX_MESSAGE_BODY.sms} by SMS, which ends with the thread's reply code).`,
  })
  body!: string;
  @Field(() => String, { nullable: true, description: 'email or sms; default: e-mail when the guest left an address, else SMS.' }) channel?: string | null;
}

export const [CaseMessageList, CaseMessageListArgs] = listInputs('CaseMessage', CaseMessageType, {
  where: {
    direction: { filter: StringFilter, description: 'out or in.' },
    channel: { filter: StringFilter, description: 'email or sms.' },
    status: { filter: StringFilter, description: 'queued, sent or failed.' },
  },
  orderBy: ['createdAt'],
});
