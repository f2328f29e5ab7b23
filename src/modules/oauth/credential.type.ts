import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { StringFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { ResourceType } from '../../kit/graphql/resource.type.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';

@ObjectType('Credential', { simpleResolvers: true, description: 'An OAuth client of a business. Its secret is shown once, by createCredential.' })
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

  @Field(() => [String], {
    description:
      "The most its client_credentials tokens may carry (within what its creator's role allows when one is issued): at most the scopes of the token that created it.",
  })
  scopes!: string[];

  @Field(() => Boolean, {
    description:
      "Held to OAuth 2.1: its authorization requests must carry PKCE (S256) and its code exchanges the redirect URI. False: it may follow the interface document's flow, which has neither (what it sends is checked all the same). Public clients, and every client under OAUTH_REQUIRE_PKCE=all, are held to it whatever this says.",
  })
  requirePkce!: boolean;
}

@ObjectType('CreatedCredential', {
  simpleResolvers: true,
  description: 'A credential with its new client secret (createCredential, rotateCredentialSecret): the only time that secret is shown.',
})
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

  @Field(() => [String], {
    nullable: true,
    description: 'What its client_credentials tokens may carry at most; default, and at most: the scopes of the token that creates it.',
  })
  scopes?: string[] | null;

  @Field(() => Boolean, {
    nullable: true,
    description: "Hold it to OAuth 2.1: PKCE and the redirect URI at the token endpoint required (default false: the interface document's flow).",
  })
  requirePkce?: boolean | null;
}

export const UpdateCredentialInput = updateInputOf('UpdateCredentialInput', CreateCredentialInput, { omit: ['scopes'] });

export const [CredentialList, CredentialListArgs] = listInputs('Credential', CredentialType, {
  where: { name: StringFilter, clientId: StringFilter },
  orderBy: ['createdAt', 'name'],
});
