import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { themeSettingsOf, updateThemeSettings } from './theme-settings.service.js';
import { ThemeSettingsType, ThemeSettingsUpdateType, UpdateThemeSettingsInput } from './theme-settings.type.js';

/**
 * A business's theme settings: business-wide configuration, as its brand and review link are, so the same scopes
 * (business:read for every member, business:write for owners and managers). The auth checker matches `business`
 * with the token's business.
 */
@Resolver()
export class ThemeSettingsResolver {
  @Authorized('business:read')
  @Query(() => ThemeSettingsType, {
    description: 'The words the business added to themes, its own themes and the themes it switched off. Needs business:read.',
  })
  themeSettings(@Arg('business', () => ID) business: string, @Ctx() { em }: GraphQLContext) {
    return themeSettingsOf(em, business);
  }

  @Authorized('business:write')
  @Mutation(() => ThemeSettingsUpdateType, {
    description:
      'Changes the business’s theme settings: comments are read with them at once, and its answers of the last 30 days are read again in the background. Needs business:write.',
  })
  updateThemeSettings(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => UpdateThemeSettingsInput) input: UpdateThemeSettingsInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return updateThemeSettings(em, business, input);
  }
}
