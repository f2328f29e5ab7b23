import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from './scalars.js';

/**
 * The fields every resource object carries (docs/architecture.md, "Reading and writing data"), declared once and
 * inherited by each object type. No resolver returns this base type, so the schema never shows it on its own.
 * Presenters (owned.presenter.ts, or one literal where pages read them by the hundred) write each object in the order
 * JSON answers, events and webhook bodies keep: `id`, `object`, `business` (what a business owns), its own fields,
 * `createdAt`, `updatedAt`.
 */
@ObjectType({ simpleResolvers: true })
export abstract class ResourceType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'The resource name in lower case: "survey", "surveystep", "metric", "order"...' })
  object!: string;

  @Field(() => Timestamp, { description: 'When it was created: milliseconds since the Unix epoch.' })
  createdAt!: Date;

  @Field(() => Timestamp, { description: 'When it last changed: milliseconds since the Unix epoch.' })
  updatedAt!: Date;
}

/** A resource its business names and may describe (a survey, a metric): both fields declared once. */
@ObjectType({ simpleResolvers: true })
export abstract class NamedResourceType extends ResourceType {
  /** Business id; the `business` field resolves it. */
  business!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;
}

/**
 * A field resolver's root as the parent resolver gave it (`@Root() survey: Parent<SurveyType>`). Typed as a class,
 * type-graphql would copy every root into a new instance of that class before each call; a non-class type is passed
 * on as it is.
 */
export type Parent<T> = Readonly<T>;
