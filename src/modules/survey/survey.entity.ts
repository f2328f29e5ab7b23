import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { NamedOwnedEntity } from '../business/index.js';

export const SURVEY_STATUSES = ['draft', 'active', 'archived'] as const;
export type SurveyStatus = (typeof SURVEY_STATUSES)[number];

// Tells the survey pages' caches when it changes, after commit (modules/business/survey-page.signal.ts).
@Entity({ tableName: 'survey' })
@Index({ name: 'survey_business_created_idx', properties: ['business', 'createdAt', 'id'] })
export class Survey extends NamedOwnedEntity {
  id = newId('survey');

  @Enum({ items: () => SURVEY_STATUSES }) status: Opt<SurveyStatus> = 'draft';

  /** Shown on the survey page's thank-you screen, under the heading "Thank you". */
  @Property({ type: 'text', nullable: true }) closingText?: string | null;

  /** An optional "review us" link on the thank-you screen, offered to every guest whatever they rated. */
  @Property({ type: 'string', length: 2000, nullable: true }) reviewUrl?: string | null;

  /** The languages its guest page offers (GUEST_LANGUAGES codes, the first the default); null: every one. */
  @Property({ type: 'json', nullable: true }) languages?: string[] | null;
}
