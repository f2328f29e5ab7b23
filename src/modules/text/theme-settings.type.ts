import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('ThemeWords', { simpleResolvers: true, description: 'Words added to a theme in one language.' })
export class ThemeWordsType {
  @Field({ description: 'A built-in theme (food, speed, staff, cleanliness, price, ambience, accuracy, delivery) or the business’s own (such as `parking`).' })
  theme!: string;
  @Field({ description: '`en`, `ur` (Urdu script) or `ur-Latn` (Roman Urdu).' }) language!: string;
  @Field(() => [String], { description: 'Lower case; a phrase of several words matches as one.' }) words!: string[];
}

@ObjectType('ThemeSettings', {
  simpleResolvers: true,
  description: 'How a business’s guests’ comments are read: its own words and themes, and the themes switched off.',
})
export class ThemeSettingsType {
  @Field(() => [ThemeWordsType]) words!: ThemeWordsType[];
  @Field(() => [String], { description: 'Themes switched off: never reported.' }) off!: string[];
  @Field(() => Timestamp, { nullable: true, description: 'null: never changed (the built-in themes alone).' }) updatedAt!: Date | null;
}

@ObjectType('ThemeSettingsUpdate', { simpleResolvers: true })
export class ThemeSettingsUpdateType extends ThemeSettingsType {
  @Field(() => Int, { description: 'Submissions of the last 30 days queued to be read again with the new settings, in the background.' }) reanalysing!: number;
}

@InputType('ThemeWordsInput')
export class ThemeWordsInput {
  @Field() theme!: string;
  @Field({ description: '`en`, `ur` or `ur-Latn`.' }) language!: string;
  @Field(() => [String]) words!: string[];
}

@InputType('UpdateThemeSettingsInput', { description: 'A field left out keeps its value; a list given replaces the stored one.' })
export class UpdateThemeSettingsInput {
  @Field(() => [ThemeWordsInput], {
    nullable: true,
    description: 'At most 100 entries (a theme in a language each), each of 1 to 100 words of at most 60 characters.',
  })
  words?: ThemeWordsInput[] | null;
  @Field(() => [String], { nullable: true, description: 'Built-in themes or the business’s own to switch off (at most 50).' }) off?: string[] | null;
}
