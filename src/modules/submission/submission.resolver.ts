import { Authorized, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { loadRelated } from '../../kit/graphql/relation.load.js';
import { NestedCrudResolver } from '../business/index.js';
import { SurveyType, presentSurvey, Survey } from '../survey/index.js';
import { OrderType, presentOrder, Order } from '../order/index.js';
import { LocationType, presentLocation, Location } from '../location/index.js';
import { SubmissionType } from './submission.type.js';
import { Submission } from './submission.entity.js';
import * as inputs from './submission.inputs.js';
import * as submissions from './submission.service.js';
import type { Parent } from '../../kit/graphql/resource.type.js';
import { AnswerAnalysis } from './answer-analysis.entity.js';
import { AnswerAnalysisType, AnswerThemeType } from './answer-analysis.type.js';
import { presentAnalysis } from './submission-analysis.task.js';

@Resolver(() => SubmissionType)
export class SubmissionResolver extends NestedCrudResolver('survey', SubmissionType, inputs, submissions.crud, {
  names: ['submission', 'submissions'],
  descriptions: { create: "Answers are checked against the survey's steps; link parameters as interface 4.9." },
}) {
  @FieldResolver(() => SurveyType, { nullable: true, description: 'null once the survey is deleted.' })
  survey(@Root() s: Parent<SubmissionType>, @Ctx() { loaders }: GraphQLContext) {
    return loadRelated(loaders.byId(Survey), s.surveyId, presentSurvey);
  }

  @Authorized('orders:read')
  @FieldResolver(() => OrderType, { nullable: true, description: 'Needs orders:read.' })
  order(@Root() s: Parent<SubmissionType>, @Ctx() { loaders }: GraphQLContext) {
    return loadRelated(loaders.byId(Order), s.orderId, presentOrder);
  }

  @Authorized('locations:read')
  @FieldResolver(() => LocationType, { nullable: true, description: 'Needs locations:read.' })
  location(@Root() s: Parent<SubmissionType>, @Ctx() { loaders }: GraphQLContext) {
    return loadRelated(loaders.byId(Location), s.locationId, presentLocation);
  }

  @FieldResolver(() => [AnswerAnalysisType], {
    description: 'What the workers read in each text answer (within seconds of its storing), in the order of the survey’s steps by id; empty until then.',
  })
  async analysis(@Root() s: Parent<SubmissionType>, @Ctx() { loaders }: GraphQLContext) {
    // One statement for a whole page's submissions.
    return (await loaders.byForeignKey(AnswerAnalysis, 'submission', { orderBy: BY_STEP }).load(s.id)).map(presentAnalysis);
  }

  @FieldResolver(() => [AnswerThemeType], {
    description:
      'Each theme the workers read in its text answers, with the answer’s step and the theme’s sentiment there: `analysis`’s themes in one list, which a page of submissions can ask for at the cost of one list per row.',
  })
  async themes(@Root() s: Parent<SubmissionType>, @Ctx() { loaders }: GraphQLContext) {
    const analyses = await loaders.byForeignKey(AnswerAnalysis, 'submission', { orderBy: BY_STEP }).load(s.id);
    return analyses.flatMap((a) => a.themes.map((t) => ({ step: a.step, theme: t.theme, sentiment: t.sentiment })));
  }
}

const BY_STEP: Record<string, 'asc' | 'desc'>[] = [{ step: 'asc' }];

const NEWEST_FIRST: Record<string, 'asc' | 'desc'>[] = [{ createdAt: 'desc' }, { id: 'desc' }];

@Resolver(() => OrderType)
export class OrderSubmissionsResolver {
  @Authorized('submissions:read')
  @FieldResolver(() => [SubmissionType], { description: 'Feedback linked to this order, newest first. Needs submissions:read.' })
  async submissions(@Root() order: Parent<OrderType>, @Ctx() { loaders }: GraphQLContext) {
    return (await loaders.byForeignKey(Submission, 'order', { orderBy: NEWEST_FIRST }).load(order.id)).map(submissions.presentSubmission);
  }
}
