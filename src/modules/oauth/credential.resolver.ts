import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { findPage } from '../../kit/list/list.query.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { AppError } from '../../shared/errors.js';
import { Credential } from './credential.entity.js';
import { createCredential, deleteCredential, findCredential, presentCredential, rotateCredentialSecret, updateCredential } from './credential.service.js';
import { CreateCredentialInput, CreatedCredentialType, CredentialList, CredentialListArgs, CredentialType, UpdateCredentialInput } from './credential.type.js';

/**
 * Credentials of a business (interface 4.7): list, get, create (the secret is in this response only), delete; and, in
 * GraphQL only (REST has no update for them), a change of name, redirect URIs or requirePkce, and a new secret
 * (answered once, as at creation).
 */
@Resolver(() => CredentialType)
export class CredentialResolver {
  @Authorized('credentials:read')
  @Query(() => CredentialList)
  credentials(
    @Arg('business', () => ID) business: string,
    @Args(() => CredentialListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return findPage(em, Credential, { scope: { business }, args, present: presentCredential });
  }

  @Authorized('credentials:read')
  @Query(() => CredentialType)
  async credential(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return presentCredential(await findCredential(em, business, id));
  }

  @Authorized('credentials:write')
  @Mutation(() => CreatedCredentialType)
  async createCredential(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => CreateCredentialInput) input: CreateCredentialInput,
    @Ctx() { em, auth }: GraphQLContext,
  ) {
    if (!auth) throw new AppError('unauthorized', 'An access token is required');
    // Never more than this token holds: consent to credentials:write is not consent to every scope.
    const { credential, clientSecret } = await createCredential(em, { business, ...input, createdBy: auth.userId, within: auth.scopes });
    return { ...presentCredential(credential), clientSecret };
  }

  @Authorized('credentials:write')
  @Mutation(() => CredentialType, { description: 'Changes its name, redirect URIs or requirePkce. Its scopes and secret stay.' })
  updateCredential(
    @Arg('business', () => ID) business: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateCredentialInput) input: InstanceType<typeof UpdateCredentialInput>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return updateCredential(em, business, id, input);
  }

  @Authorized('credentials:write')
  @Mutation(() => CreatedCredentialType, {
    description:
      'A new client secret, answered here only: the old one stops working at once, and the client_credentials tokens it minted are revoked. Tokens members granted through the client stay; refreshing them takes the new secret.',
  })
  async rotateCredentialSecret(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    const { credential, clientSecret } = await rotateCredentialSecret(em, business, id);
    return { ...credential, clientSecret };
  }

  @Authorized('credentials:write')
  @Mutation(() => ID, { description: 'Deletes the credential and revokes every token it minted.' })
  async deleteCredential(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return deleteCredential(em, business, id);
  }
}
