import { Field, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';

@ObjectType('ReplyTemplate', { simpleResolvers: true, description: 'A saved reply to unhappy guests.' })
export class ReplyTemplateType extends ResourceType {
  business!: string;

  @Field()
  name!: string;

  @Field()
  body!: string;
}
