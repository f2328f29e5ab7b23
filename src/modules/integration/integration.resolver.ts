import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { CustomIntegration } from './custom-integration.entity.js';
import { connectCustomIntegration, customWebhookPath, disconnectCustomIntegration, presentCustomIntegration } from './custom-integration.service.js';
import { ConnectedCustomIntegrationType, CustomIntegrationType } from './integration.type.js';

const present = (integration: CustomIntegration): CustomIntegrationType => ({
  ...presentCustomIntegration(integration),
  webhookPath: customWebhookPath(integration.business),
});

/** Connecting the Custom order webhook: the same service as the admin CLI's `connect-custom`. */
@Resolver(() => CustomIntegrationType)
export class CustomIntegrationResolver {
  @Authorized('orders:read')
  @Query(() => CustomIntegrationType, { nullable: true, description: 'The Custom integration of the business, or null when not connected. Never the secret.' })
  async customIntegration(@Arg('business', () => ID) business: string, @Ctx() { em }: GraphQLContext) {
    const integration = await em.findOne(CustomIntegration, { business });
    return integration ? present(integration) : null;
  }

  @Authorized('orders:write')
  @Mutation(() => ConnectedCustomIntegrationType, {
    description: 'Connects the Custom order webhook and returns its secret, once. Calling it again rotates the secret: the old one stops working at once.',
  })
  async connectCustomIntegration(@Arg('business', () => ID) business: string, @Ctx() { em }: GraphQLContext): Promise<ConnectedCustomIntegrationType> {
    const { integration, secret, rotated } = await connectCustomIntegration(em, business);
    return { ...present(integration), secret, rotated };
  }

  @Authorized('orders:write')
  @Mutation(() => Boolean, { description: 'Disconnects the Custom order webhook: every secret stops working. False when it was not connected.' })
  disconnectCustomIntegration(@Arg('business', () => ID) business: string, @Ctx() { em }: GraphQLContext) {
    return disconnectCustomIntegration(em, business);
  }
}
