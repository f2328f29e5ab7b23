import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import type { Parent } from '../../kit/graphql/resource.type.js';
import { BusinessType } from '../business/index.js';
import { SendingBudgetType } from './sending-budget.type.js';

/**
 * Each request's budgets by business: an answer that shows one business many times (a page of surveys with
 * `expand=business`, every one the same tenant) reads them once.
 */
const read = new WeakMap<GraphQLContext, Map<string, Promise<SendingBudgetType[]>>>();

@Resolver(() => BusinessType)
export class SendingBudgetResolver {
  @FieldResolver(() => [SendingBudgetType], {
    description:
      "Today's sending budget on each channel (email, sms): the limit, what was used and what is left, the messages held, when it resets. Also in REST's GET /v2/businesses/{business}.",
  })
  sendingBudget(@Root() business: Parent<BusinessType>, @Ctx() context: GraphQLContext): Promise<SendingBudgetType[]> {
    let byBusiness = read.get(context);
    if (!byBusiness) read.set(context, (byBusiness = new Map()));
    let budgets = byBusiness.get(business.id);
    if (!budgets) byBusiness.set(business.id, (budgets = context.services.sending.of(context.em, business, new Date())));
    return budgets;
  }
}
