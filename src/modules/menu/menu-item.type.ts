import { Field, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';

@ObjectType('MenuItem', { simpleResolvers: true, description: 'An entry of the business menu, synced from order lines by name.' })
export class MenuItemType extends ResourceType {
  business!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true, description: "The sender's product id (`itemId`), the latest seen for this name." })
  itemId?: string | null;
}
