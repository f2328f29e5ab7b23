import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('CustomIntegration', {
  simpleResolvers: true,
  description: 'The Custom order webhook of a business. Its secret is shown once, by connectCustomIntegration.',
})
export class CustomIntegrationType {
  @Field({ description: 'Always "custom_integration".' })
  object!: string;

  @Field(() => ID)
  business!: string;

  @Field(() => Timestamp, { description: 'When it was first connected.' })
  connectedAt!: Date;

  @Field(() => Timestamp, { nullable: true, description: 'When the secret was last rotated (connected again); null if never.' })
  rotatedAt?: Date | null;

  @Field({ description: 'Where orders are posted: POST <base_url><webhookPath> with Authorization: Bearer <secret>.' })
  webhookPath!: string;
}

@ObjectType('ConnectedCustomIntegration', {
  simpleResolvers: true,
  description: 'The integration with its new webhook secret: the only time the secret is shown.',
})
export class ConnectedCustomIntegrationType extends CustomIntegrationType {
  @Field({ description: 'Store it safely now: only its hash is kept. Connecting again rotates it and this one stops working at once.' })
  secret!: string;

  @Field({ description: 'True when the integration was already connected and this call rotated its secret.' })
  rotated!: boolean;
}
