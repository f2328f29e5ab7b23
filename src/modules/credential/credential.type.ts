import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { IDFilter, StringFilter, TimestampFilter, listArgs, listType, orderByInput } from '../../kit/list.args.js';
import { ResourceType } from '../../kit/resource.type.js';

@ObjectType('Credential', { description: 'An OAuth client of a business. Its secret is shown once, by createCredential.' })
export class CredentialType extends ResourceType {
  @Field(() => ID)
  business!: string;

  @Field()
  name!: string;

  @Field({ description: 'The OAuth client_id.' })
  clientId!: string;

  @Field(() => [String], { description: 'Exact redirect URIs accepted by /oauth/authorize.' })
  validRedirectUris!: string[];

  @Field(() => ID, { description: 'The user who created it; client_credentials tokens act for this user.' })
  createdBy!: string;
}

@ObjectType('CreatedCredential', { description: 'A new credential with its client secret: the only time the secret is shown.' })
export class CreatedCredentialType extends CredentialType {
  @Field({ description: 'Store it safely now: only its hash is kept.' })
  clientSecret!: string;
}

@InputType('CreateCredentialInput')
export class CreateCredentialInput {
  @Field()
  name!: string;

  @Field(() => [String])
  validRedirectUris!: string[];
}

@InputType('CredentialWhere')
export class CredentialWhere {
  @Field(() => IDFilter, { nullable: true }) id?: IDFilter;
  @Field(() => StringFilter, { nullable: true }) name?: StringFilter;
  @Field(() => StringFilter, { nullable: true }) clientId?: StringFilter;
  @Field(() => TimestampFilter, { nullable: true }) createdAt?: TimestampFilter;
}

export const CredentialOrderBy = orderByInput('CredentialOrderBy', { createdAt: 'createdAt', name: 'name' });
export const CredentialListArgs = listArgs(CredentialWhere, CredentialOrderBy);
export const CredentialList = listType(CredentialType, 'CredentialList');
