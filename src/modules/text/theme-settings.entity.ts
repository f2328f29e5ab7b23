import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Timestamped } from '../../shared/timestamps.js';
import { Business } from '../business/index.js';
import type { WordLanguage } from './text-analysis.model.js';

export interface ThemeWords {
  theme: string;
  language: WordLanguage;
  words: string[];
}

/**
 * A business's own reading of its guests' words (ThemeSettings for the analyser): words added to a theme per language
 * (a theme not built in is its own, such as `parking`) and themes switched off. One row per business, absent until set.
 */
@Entity({ tableName: 'theme_settings' })
export class BusinessThemeSettings extends Timestamped {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true }) business!: string;
  @Property({ type: 'json' }) words: Opt<ThemeWords[]> = [];
  @Property({ type: 'json' }) off: Opt<string[]> = [];
}
