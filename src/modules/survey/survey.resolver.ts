import { Arg, Authorized, Ctx, FieldResolver, ID, Info, Query, registerEnumType, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { fillSelected, OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { STEP_METRICS } from './survey-step.resolver.js';
import { SurveyType } from './survey.type.js';
import { SurveyStepType } from './survey-step.type.js';
import { presentStep, STEP_FIELD_READS } from './survey-step.service.js';
import { propertiesFor, selectedFields } from '../../kit/selection.js';
import { storedColumns } from '../../kit/plain.rows.js';
import { SurveyStep } from './survey-step.entity.js';
import * as inputs from './survey.inputs.js';
import * as surveys from './survey.service.js';
import { LINK_CHANNELS, surveyLink, surveyUrl } from './survey-link.js';

export const LinkChannelEnum = Object.fromEntries(LINK_CHANNELS.map((c) => [c, c])) as { [K in (typeof LINK_CHANNELS)[number]]: K };
registerEnumType(LinkChannelEnum, { name: 'LinkChannel', description: "How a guest gets a survey link: the link's `ch`, recorded on the submission." });

const STEP_ORDER: Record<string, 'asc' | 'desc'>[] = [{ position: 'asc' }, { id: 'asc' }];

@Resolver(() => SurveyType)
export class SurveyResolver extends OwnedCrudResolver(SurveyType, inputs, surveys.crud, {
  names: ['survey', 'surveys'],
  descriptions: { list: 'Surveys of a business.', delete: 'Deletes the survey and its steps; submissions keep their answers.' },
}) {
  @Authorized('surveys:read')
  @Query(() => String, { description: "A link to the survey page with spec 4.9's parameters for a location, an order and a channel." })
  surveyLink(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('location', () => ID, { nullable: true }) location: string | null,
    @Arg('orderId', () => ID, { nullable: true }) orderId: string | null,
    @Arg('channel', () => LinkChannelEnum, { nullable: true }) channel: string | null,
    @Ctx() { em, surveyUrl: base }: GraphQLContext,
  ) {
    return surveyLink(em, base, business, survey, { location, orderId, channel });
  }

  @FieldResolver(() => String, { description: 'The survey page guests answer it on (SURVEY_URL/survey/{business}/{survey}); only active surveys take answers.' })
  url(@Root() s: SurveyType, @Ctx() ctx: GraphQLContext) {
    return surveyUrl(ctx.surveyUrl, s.business, s.id);
  }

  @FieldResolver(() => [SurveyStepType], { description: 'In position order.' })
  async steps(@Root() survey: SurveyType, @Ctx() context: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    // Only the columns the selection shows: a step's content, validation and logic are JSON a page seldom asks for.
    const fields = selectedFields(info);
    const properties = propertiesFor(fields, STEP_FIELD_READS, storedColumns(context.em, SurveyStep));
    const steps = (await context.loaders.byForeignKey(SurveyStep, 'survey', { orderBy: STEP_ORDER, plain: true, properties }).load(survey.id)).map(presentStep);
    await fillSelected(STEP_METRICS, steps, () => fields, context);
    return steps;
  }
}
