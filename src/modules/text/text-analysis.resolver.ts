import { Arg, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { analyseTexts } from './text-analysis.service.js';
import { TextAnalysisType } from './text-analysis.type.js';

/** Reading guests' words on demand (scope submissions:read, as reading their answers is); the rules are in text.analyser. */
@Resolver()
export class TextAnalysisResolver {
  @Authorized('submissions:read')
  @Query(() => [TextAnalysisType], {
    description:
      'The language, sentiment, themes and menu dishes of each text, in order (1 to 100 texts of at most 2,000 characters). Offline; nothing is stored.',
  })
  textAnalysis(
    @Arg('business', () => ID) business: string,
    @Arg('texts', () => [String], { description: 'At most 100 texts of at most 2,000 characters each.' }) texts: string[],
    @Ctx() { em }: GraphQLContext,
  ) {
    return analyseTexts(em, business, texts);
  }
}
