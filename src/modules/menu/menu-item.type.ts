import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from '../../graphql/scalars.js';

@ObjectType('MenuItem', { description: "An entry of the business menu, synced from order lines by name." })
export class MenuItemType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Always "menuitem".' })
  object!: string;

  business!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true, description: "The sender's product id (`itemId`), the latest seen for this name." })
  itemId?: string | null;

  @Field(() => Timestamp)
  createdAt!: Date;

  @Field(() => Timestamp)
  updatedAt!: Date;
}
