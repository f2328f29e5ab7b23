import { Field, InputType } from 'type-graphql';

/** The create input's fields of a resource its business names and may describe (NamedResourceType). */
@InputType()
export abstract class NamedInput {
  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;
}
