import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { SurveyType } from './survey.type.js';
import { SurveyStepType } from './survey-step.type.js';
import { presentStep } from './survey-step.service.js';
import { SurveyStep } from './survey-step.entity.js';
import { CreateSurveyInput, SurveyList, SurveyListArgs, UpdateSurveyInput } from './survey.inputs.js';
import * as surveys from './survey.service.js';

@Resolver(() => SurveyType)
export class SurveyResolver extends OwnedCrudResolver({
  type: SurveyType,
  names: ['survey', 'surveys'],
  list: [SurveyList, SurveyListArgs],
  inputs: [CreateSurveyInput, UpdateSurveyInput],
  descriptions: { list: 'Surveys of a business.', delete: 'Deletes the survey and its steps; submissions keep their answers.' },
  service: { list: surveys.listSurveys, find: surveys.findSurvey, present: surveys.presentSurvey, create: surveys.createSurvey, update: surveys.updateSurvey, delete: surveys.deleteSurvey },
}) {
  @FieldResolver(() => [SurveyStepType], { description: 'In position order.' })
  async steps(@Root() survey: SurveyType, @Ctx() { loaders }: GraphQLContext) {
    return (await loaders.byForeignKey(SurveyStep, 'survey', { orderBy: [{ position: 'asc' }, { id: 'asc' }], plain: true }).load(survey.id)).map(presentStep);
  }
}
