import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';
import { Survey } from '../survey/index.js';
import { Order } from '../order/index.js';
import { Location } from '../location/index.js';

export interface Answer {
  step: string;
  value?: string | number | string[];
  ratings?: Record<string, number>;
  /** `items` steps: menu item id -> rating (1 to 5; a thumbs-up is 5, a thumbs-down 1), for dishes on the linked order. */
  items?: Record<string, number>;
  /** Survey page only, for the funnel's time per step (never shown by the API): when the guest answered (ms). */
  answeredAt?: number;
  /** Survey page only: how long the guest spent on the step before answering it (ms; absent when over an hour). */
  spentMs?: number;
}

const SUBMISSION_STATUSES = ['partial', 'completed'] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];
/** `api`: written by an integration (which may record several responses per order); `page`: a guest on the survey page. */
const SUBMISSION_SOURCES = ['api', 'page'] as const;
export type SubmissionSource = (typeof SUBMISSION_SOURCES)[number];

@Entity({ tableName: 'submission' })
@Index({ name: 'submission_survey_created_idx', properties: ['survey', 'createdAt', 'id'] })
@Index({ name: 'submission_business_created_idx', properties: ['business', 'createdAt', 'id'] })
@Index({ name: 'submission_order_idx', properties: ['order'] })
@Index({ name: 'submission_location_idx', properties: ['location'] })
// One completed response per order and survey from the survey page: concurrent last steps race here, not in code.
@Index({
  name: 'submission_page_order_survey_completed_uq',
  expression:
    'create unique index "submission_page_order_survey_completed_uq" on "submission" ("order_id", "survey_id") where "status" = \'completed\' and "source" = \'page\' and "order_id" is not null',
})
// A guest's device resumes its partial response by the session id its cookie holds (latestDeviceResponse): found and
// ordered by the index alone, whatever the statistics say.
@Index({ name: 'submission_survey_session_idx', properties: ['survey', 'sessionId', 'createdAt', 'id'] })
@Index({ name: 'submission_survey_lowest_rating_idx', properties: ['survey', 'lowestRating'] })
export class Submission extends BusinessOwnedEntity {
  id = newId('submission');

  /** Feedback outlives the form: deleting a survey leaves its submissions (and their answers) in place. */
  @ManyToOne(() => Survey, { mapToPk: true, nullable: true, deleteRule: 'set null' }) survey?: string | null;
  @Property({ type: 'json' }) answers: Opt<Answer[]> = [];
  @Property({ type: 'string', length: 200, nullable: true }) guestId?: string | null;
  @Property({ type: 'string', length: 200, nullable: true }) sessionId?: string | null;
  @Property({ type: 'json' }) metadata: Opt<Record<string, unknown>> = {};
  @ManyToOne(() => Order, { mapToPk: true, nullable: true, deleteRule: 'set null' }) order?: string | null;
  @ManyToOne(() => Location, { mapToPk: true, nullable: true, deleteRule: 'set null' }) location?: string | null;
  @Enum({ items: () => SUBMISSION_STATUSES }) status: Opt<SubmissionStatus> = 'completed';
  @Property({ type: 'datetime', length: 3, nullable: true }) completedAt?: Date | null;
  @Enum({ items: () => SUBMISSION_SOURCES }) source: Opt<SubmissionSource> = 'api';

  /** How the guest got the link (`ch`): qr, link, sms or email. */
  @Property({ type: 'string', length: 20, nullable: true }) channel?: string | null;

  /**
   * The day (in its location's time zone) its ratings count on in the analytics rollups, set by the table's trigger
   * when it is written: kept so that removing its contribution later finds the same buckets whatever changed since.
   */
  @Property({ type: 'date', nullable: true, lazy: true, hidden: true }) analyticsDay?: string | null;

  /**
   * The server or cashier its ratings count for in the analytics rollups: its order's `metadata[<business staffKey>]`,
   * set by the table's trigger when it is written or its order changes, and kept like analyticsDay.
   */
  @Property({ type: 'string', length: 100, nullable: true, lazy: true, hidden: true }) analyticsStaff?: string | null;

  /** The lowest metric rating in its answers (null: none), kept by PostgreSQL from `answers` for the list filter. */
  @Property({ type: 'double', nullable: true, lazy: true, hidden: true, generated: '(submission_lowest_rating(answers)) stored' }) lowestRating?: Opt<
    number | null
  >;
}
