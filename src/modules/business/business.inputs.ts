import { Field, InputType } from 'type-graphql';

@InputType('UpdateBusinessInput', { description: 'The fields to change; null clears an optional one.' })
export class UpdateBusinessInput {
  @Field(() => String, { nullable: true, description: '1 to 200 characters.' })
  name?: string;

  @Field(() => String, { nullable: true, description: 'At most 80 characters; null: `name`.' })
  displayName?: string | null;

  @Field(() => String, { nullable: true, description: '#RRGGBB, dark enough for white text on it (WCAG AA, 4.5:1); null: the default blue.' })
  brandColor?: string | null;

  @Field(() => String, { nullable: true, description: 'An https URL (a review page of the business).' })
  reviewUrl?: string | null;

  @Field(() => String, { nullable: true, description: 'An e-mail address: the Reply-To of feedback e-mails.' })
  replyTo?: string | null;

  @Field(() => String, { nullable: true, description: 'The order `metadata` key that names the server or cashier (1 to 100 characters); null: `server`.' })
  staffKey?: string | null;
}
