import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import type { Parent } from '../../kit/resource.type.js';
import { BusinessType } from '../business/business.type.js';
import { SendingBudgetType } from './sending-budget.type.js';
import { sendingBudgetsOf } from './sending-budget.service.js';

@Resolver(() => BusinessType)
export class SendingBudgetResolver {
  @FieldResolver(() => [SendingBudgetType], {
    description: "Today's sending budget on each channel (email, sms): the limit, what was used and what is left, the messages held, when it resets. Also in REST's GET /v2/businesses/{business}.",
  })
  sendingBudget(@Root() business: Parent<BusinessType>, @Ctx() { em }: GraphQLContext): Promise<SendingBudgetType[]> {
    return sendingBudgetsOf(em, business, new Date());
  }
}
