import { Authorized, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { loadRelated, loadRequired } from '../../kit/graphql/relation.load.js';
import type { Parent } from '../../kit/graphql/resource.type.js';
import { OwnedCrudResolver } from '../business/index.js';
import { SubmissionType, Submission, presentSubmission } from '../submission/index.js';
import { OrderType, Order, presentOrder } from '../order/index.js';
import { LocationType, Location, presentLocation } from '../location/index.js';
import { CaseType } from './case.type.js';
import * as inputs from './case.inputs.js';
import * as cases from './case.service.js';

@Resolver(() => CaseType)
export class CaseResolver extends OwnedCrudResolver(CaseType, inputs, cases.crud, {
  names: ['case', 'cases'],
  descriptions: { list: 'Newest first unless orderBy says otherwise.', update: 'Status (resolved, recovered, back to open) and assignee.' },
}) {
  @Authorized('submissions:read')
  @FieldResolver(() => SubmissionType, { description: "The guest's answer that opened it. Needs submissions:read." })
  submission(@Root() c: Parent<CaseType>, @Ctx() { loaders }: GraphQLContext) {
    return loadRequired(loaders.byId(Submission), c.submissionId, 'Submission', presentSubmission);
  }

  @Authorized('orders:read')
  @FieldResolver(() => OrderType, { nullable: true, description: 'The order the answer was about. Needs orders:read.' })
  order(@Root() c: Parent<CaseType>, @Ctx() { loaders }: GraphQLContext) {
    return loadRelated(loaders.byId(Order), c.orderId, presentOrder);
  }

  @Authorized('locations:read')
  @FieldResolver(() => LocationType, { nullable: true, description: 'Needs locations:read.' })
  location(@Root() c: Parent<CaseType>, @Ctx() { loaders }: GraphQLContext) {
    return loadRelated(loaders.byId(Location), c.locationId, presentLocation);
  }
}
