import { Field, InputType } from 'type-graphql';
import { StringFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import { ReplyTemplateType } from './reply-template.type.js';

@InputType('CreateReplyTemplateInput')
export class CreateReplyTemplateInput {
  @Field({ description: 'At most 100 characters.' }) name!: string;
  @Field({ description: 'At most 2000 characters.' }) body!: string;
}

export const UpdateReplyTemplateInput = updateInputOf('UpdateReplyTemplateInput', CreateReplyTemplateInput);
export type UpdateReplyTemplateInput = InstanceType<typeof UpdateReplyTemplateInput>;

export const [ReplyTemplateList, ReplyTemplateListArgs] = listInputs('ReplyTemplate', ReplyTemplateType, {
  where: { name: StringFilter },
  orderBy: ['createdAt', 'updatedAt', 'name'],
});
