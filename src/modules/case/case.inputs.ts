import { Field, ID, InputType } from 'type-graphql';
import { IDFilter, StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { CaseType } from './case.type.js';

@InputType('UpdateCaseInput')
export class UpdateCaseInput {
  @Field(() => String, { nullable: true, description: 'open, replied, resolved or recovered.' }) status?: string | null;
  @Field(() => ID, { nullable: true, description: 'A member of the business (`mem_...`); null: unassigned.' }) assignee?: string | null;
}

export const [CaseList, CaseListArgs] = listInputs('Case', CaseType, {
  where: {
    status: { filter: StringFilter, description: 'open, replied, resolved or recovered.' },
    severity: { filter: StringFilter, description: 'normal or urgent.' },
    location: IDFilter,
    assignee: IDFilter,
    openedAt: TimestampFilter,
  },
  orderBy: ['createdAt', 'updatedAt', 'openedAt'],
});
