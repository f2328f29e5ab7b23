import { Field, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';

@ObjectType('Business', { simpleResolvers: true, description: 'A restaurant or shop: every other resource belongs to one.' })
export class BusinessType extends ResourceType {
  @Field()
  name!: string;

  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 country code.' })
  country?: string | null;

  @Field(() => String, { nullable: true, description: 'IANA time zone: the default of its locations for analytics days (null: UTC).' })
  timeZone?: string | null;

  @Field(() => String, { description: 'The name guests see (survey pages, the From of feedback e-mails, SMS): at most 80 characters; `name` until set.' })
  displayName!: string;

  @Field(() => String, {
    nullable: true,
    description: '#RRGGBB: buttons and focus rings of the survey pages, the button of feedback e-mails (white text on it reaches WCAG AA 4.5:1).',
  })
  brandColor?: string | null;

  /** `<hash>.<ext>` of the current logo: the field `logoUrl` (a field resolver of BusinessResolver) makes its address. */
  logoFile?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "https link where the thank-you page invites every guest to review the business (a survey's own reviewUrl wins).",
  })
  reviewUrl?: string | null;

  /** The field `replyTo` is a field resolver of BusinessResolver: it needs business:read. */
  replyTo?: string | null;

  @Field({ description: "The order `metadata` key that names the server or cashier: orders' `staff`, analytics by `staff`. Default `server`." })
  staffKey!: string;
}
