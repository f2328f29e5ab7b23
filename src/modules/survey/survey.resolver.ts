import { Arg, Authorized, Ctx, FieldResolver, ID, Info, Query, registerEnumType, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { OwnedCrudResolver } from '../business/index.js';
import { fillSelected, inside, selectionOf, type Filled, type Selection } from '../../kit/graphql/owned.resolver.js';
import { STEP_METRICS } from './survey-step.resolver.js';
import { SurveyType } from './survey.type.js';
import { SurveyStepType } from './survey-step.type.js';
import { presentStep, STEP_FIELD_READS } from './survey-step.service.js';
import { propertiesFor } from '../../kit/graphql/selection.js';
import { tableOf } from '../../kit/db/entity.rows.js';
import { orderByToSql } from '../../kit/list/list.query.js';
import { STEP_DEFAULT_ORDER } from './survey-step.inputs.js';
import { SurveyStep } from './survey-step.entity.js';
import * as inputs from './survey.inputs.js';
import * as surveys from './survey.service.js';
import { LINK_CHANNELS, surveyLink, surveyUrl } from './survey-link.rules.js';
import type { Parent } from '../../kit/graphql/resource.type.js';

const LinkChannelEnum = Object.fromEntries(LINK_CHANNELS.map((c) => [c, c])) as { [K in (typeof LINK_CHANNELS)[number]]: K };
registerEnumType(LinkChannelEnum, { name: 'LinkChannel', description: "How a guest gets a survey link: the link's `ch`, recorded on the submission." });

/** The steps list's own default order (position, then id): a survey's steps come in the order surveySteps gives them. */
const STEP_ORDER = orderByToSql(null, {}, STEP_DEFAULT_ORDER);

/**
 * Each survey's steps in position order, with only the columns the selection shows (a step's content, validation and
 * logic are JSON a page seldom asks for), and their metrics when selected: for a whole answer at once, so a page of
 * 50 surveys costs one load of steps and one of metrics, not a resolver call, a load and a fill per survey.
 */
async function stepsOf(surveys: SurveyType[], context: GraphQLContext, stepSelection: Selection): Promise<SurveyStepType[][]> {
  const properties = propertiesFor(stepSelection(), STEP_FIELD_READS, tableOf(context.em, SurveyStep).columns);
  const loader = context.loaders.byForeignKey(SurveyStep, 'survey', { orderBy: STEP_ORDER, properties });
  const lists = (await Promise.all(surveys.map((survey) => loader.load(survey.id)))).map((rows) => rows.map(presentStep));
  await fillSelected(STEP_METRICS, lists.flat(), stepSelection, context);
  return lists;
}

/**
 * The surveys' `steps`, for what every `steps` field under them selects (aliases and fragments together), kept on the
 * surveys: the field resolver then answers without a load or a promise.
 */
const SURVEY_STEPS: Filled<SurveyType> = {
  fields: ['steps'],
  async fill(surveys, context, selection) {
    const lists = await stepsOf(surveys, context, inside(selection, 'steps'));
    surveys.forEach((survey, i) => (survey.steps = lists[i]));
  },
};

@Resolver(() => SurveyType)
export class SurveyResolver extends OwnedCrudResolver(SurveyType, inputs, surveys.crud, {
  names: ['survey', 'surveys'],
  descriptions: { list: 'Surveys of a business.', delete: 'Deletes the survey and its steps; submissions keep their answers.' },
  filled: SURVEY_STEPS,
}) {
  @Authorized('surveys:read')
  @Query(() => String, { description: "A link to the survey page with interface 4.9's parameters for a location, an order and a channel." })
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

  @FieldResolver(() => String, {
    description: 'The survey page guests answer it on (SURVEY_URL/survey/{business}/{survey}); only active surveys take answers.',
  })
  url(@Root() s: Parent<SurveyType>, @Ctx() ctx: GraphQLContext) {
    return surveyUrl(ctx.surveyUrl, s.business, s.id);
  }

  @FieldResolver(() => [SurveyStepType], { description: 'In position order.' })
  steps(@Root() survey: Parent<SurveyType>, @Ctx() context: GraphQLContext, @Info() info: GraphQLResolveInfo): SurveyStepType[] | Promise<SurveyStepType[]> {
    // Filled already, and answered without a promise, when the survey came from this resolver's queries and mutations.
    // Otherwise read for this field's own selection and not kept: another alias of `steps` may select other columns.
    return survey.steps ?? stepsOf([survey], context, selectionOf(info)).then(([steps]) => steps);
  }
}
