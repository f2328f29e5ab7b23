import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from './scalars.js';

/**
 * The fields every resource object carries (DESIGN.md section 2), declared once and inherited by each object type.
 * No resolver returns this base type, so the schema never shows it on its own.
 */
@ObjectType()
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
