import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { StringFilter } from '../../kit/list.args.js';
import { listInputs } from '../../kit/list.inputs.js';
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

export const [CredentialList, CredentialListArgs] = listInputs('Credential', CredentialType, {
  where: { name: StringFilter, clientId: StringFilter },
  orderBy: ['createdAt', 'name'],
});
