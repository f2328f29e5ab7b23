import type { GraphQLNamedType, GraphQLSchema } from 'graphql';
import { SCOPES } from '../src/auth/scopes.js';
import { SCOPE_DESCRIPTIONS } from '../src/modules/oauth/index.js';

/**
 * The part of the HTTP surface that is not a row of the route table, written out for /openapi.json: the OAuth
 * endpoints, the custom order webhook and the QR code route. Shapes here mirror the handlers (src/oauth/*.routes.ts,
 * src/ingest/custom-order.routes.ts, rest-adapter/qr.routes.ts); the order's body and answer come from the schema.
 */
type JsonSchema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema, description: string) => ({ description, content: { 'application/json': { schema } } });
const oauthError = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ref('OAuthError') } },
});
const basicChallenge = { 'WWW-Authenticate': { description: 'Basic realm="oauth": the client authentication failed', schema: { type: 'string' } } };
const bearerChallenge = {
  'WWW-Authenticate': { description: 'Bearer (RFC 6750), with error="invalid_token" when a token was refused', schema: { type: 'string' } },
};
const str = (description?: string): JsonSchema => ({ type: 'string', ...(description ? { description } : {}) });

/** Security schemes of the whole document. */
export function securitySchemes(): Record<string, JsonSchema> {
  const scopes = Object.fromEntries(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]]));
  return {
    oauth2: {
      type: 'oauth2',
      description:
        "RS512 JWT access tokens (1 hour), sent as `Authorization: Bearer`. Authorization code (PKCE with S256 recommended, and required of public clients, of credentials with `requirePkce` and, under OAUTH_REQUIRE_PKCE=all, of every client; refresh tokens rotate on every use) for partner apps acting for a signed-in member; client credentials for a business's own integrations (acting for the credential's creator). A member never gets a scope their role does not allow.",
      flows: {
        authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes },
        clientCredentials: { tokenUrl: '/oauth/token', scopes },
      },
    },
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from /oauth/token.' },
    webhookSecret: {
      type: 'http',
      scheme: 'bearer',
      description:
        "The custom integration's secret (`cisec_...`; one issued before as `whsec_...` keeps working), from connecting it; only for POST /webhooks/custom/{business}.",
    },
    clientSecretBasic: {
      type: 'http',
      scheme: 'basic',
      description: 'OAuth client authentication: client id and secret (or send clientId/clientSecret in the body).',
    },
  };
}

export function surfaceSchemas(): Record<string, JsonSchema> {
  const scope = { type: 'array', items: { type: 'string', enum: [...SCOPES] } };
  return {
    OAuthError: {
      type: 'object',
      description: 'RFC 6749 5.2 error',
      required: ['error'],
      properties: {
        error: {
          type: 'string',
          enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'invalid_token'],
        },
        error_description: str(),
      },
    },
    TokenRequest: {
      type: 'object',
      description: 'JSON, camelCase (answered with Token)',
      required: ['grantType'],
      properties: {
        grantType: { type: 'string', enum: ['authorization_code', 'refresh_token', 'client_credentials'] },
        clientId: str('Or HTTP Basic'),
        clientSecret: str('Or HTTP Basic'),
        code: str('authorization_code: the code from the redirect'),
        redirectUri: str(
          'authorization_code: exactly as in the authorization request (RFC 6749 4.1.3); optional for a confidential client without `requirePkce`, checked when sent',
        ),
        codeVerifier: str('authorization_code: the PKCE verifier, when the authorization request had a code challenge'),
        refreshToken: str('refresh_token'),
        scope: { oneOf: [str('Space- or comma-separated; may narrow, never widen'), scope] },
      },
    },
    TokenRequestForm: {
      type: 'object',
      description: 'RFC 6749 form, snake_case (answered with TokenRfc)',
      required: ['grant_type'],
      properties: {
        grant_type: { type: 'string', enum: ['authorization_code', 'refresh_token', 'client_credentials'] },
        client_id: str(),
        client_secret: str(),
        code: str(),
        redirect_uri: str('authorization_code (RFC 6749 4.1.3): optional for a confidential client without `requirePkce`, checked when sent'),
        code_verifier: str('authorization_code: the PKCE verifier, when the authorization request had a code challenge'),
        refresh_token: str(),
        scope: str('Space-separated'),
      },
    },
    Token: {
      type: 'object',
      required: ['id', 'object', 'accessToken', 'refreshToken', 'tokenType', 'scope', 'credential', 'user', 'issuedAt', 'expiresAt'],
      properties: {
        id: str('tk_...'),
        object: { const: 'token' },
        accessToken: str(),
        refreshToken: { type: ['string', 'null'], description: 'rt_...; null for client credentials' },
        tokenType: { const: 'Bearer' },
        scope,
        credential: str('cred_...'),
        user: str('user_...'),
        issuedAt: { type: 'integer' },
        expiresAt: { type: 'integer' },
      },
    },
    TokenRfc: {
      type: 'object',
      required: ['access_token', 'token_type', 'expires_in', 'scope'],
      properties: {
        access_token: str(),
        token_type: { const: 'Bearer' },
        expires_in: { type: 'integer' },
        refresh_token: str(),
        scope: str('Space-separated'),
      },
    },
    TokenParameter: {
      type: 'object',
      required: ['token'],
      properties: {
        token: str('An access or refresh token'),
        token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] },
        client_id: str(),
        client_secret: str(),
      },
    },
    Introspection: {
      type: 'object',
      required: ['active'],
      properties: {
        active: { type: 'boolean' },
        scope: str(),
        client_id: str(),
        sub: str(),
        token_type: str(),
        exp: { type: 'integer' },
        iat: { type: 'integer' },
        iss: str(),
        jti: str(),
        business: str(),
        credential: str(),
      },
    },
    AuthorizationServerMetadata: {
      type: 'object',
      description: 'RFC 8414',
      required: ['issuer', 'authorization_endpoint', 'token_endpoint'],
      properties: { issuer: str(), authorization_endpoint: str(), token_endpoint: str(), jwks_uri: str() },
    },
    Jwks: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' } } } },
  };
}

/** The paths that are not rows of the route table. `named` gives a schema type's JSON Schema (a $ref). */
export function surfacePaths(
  schema: GraphQLSchema,
  named: (type: GraphQLNamedType) => JsonSchema,
  schemas: Record<string, JsonSchema>,
): Record<string, Record<string, unknown>> {
  // (A schema without orders, as some tests build, documents the webhook's body as an object.)
  const orderType = schema.getType('Order');
  const inputType = schema.getType('CreateOrderInput');
  const order = orderType ? named(orderType) : { type: 'object' };
  if (inputType) named(inputType);
  // The webhook's body: the order API's fields (interface 4.9), with `payment` for `status`, at least one metadata entry,
  // and unknown fields ignored rather than refused.
  const input = (schemas.CreateOrderInput ?? { properties: {}, required: [] }) as { properties: Record<string, JsonSchema>; required: string[] };
  const { status: _status, ...fields } = input.properties;
  schemas.CustomOrderWebhookBody = {
    type: 'object',
    required: [...input.required, 'metadata'],
    properties: {
      ...fields,
      payment: { type: 'boolean', description: 'true: paid, the order is ACCEPTED; otherwise PENDING.' },
      metadata: { type: 'object', minProperties: 1, additionalProperties: { type: 'string' }, description: 'String to string; at least one entry.' },
    },
  };
  const noAuth: unknown[] = [];
  const clientAuth = [{ clientSecretBasic: [] }, {}];
  const tokenBody = {
    required: true,
    content: { 'application/json': { schema: ref('TokenRequest') }, 'application/x-www-form-urlencoded': { schema: ref('TokenRequestForm') } },
  };
  const tokenParameterBody = {
    required: true,
    content: { 'application/x-www-form-urlencoded': { schema: ref('TokenParameter') }, 'application/json': { schema: ref('TokenParameter') } },
  };
  const query = (name: string, description: string, schema: JsonSchema = { type: 'string' }) => ({ name, in: 'query', description, schema });

  return {
    '/oauth/authorize': {
      get: {
        operationId: 'oauthAuthorize',
        tags: ['OAuth'],
        summary: 'Authorization endpoint: the sign-in and consent pages (HTML), then a redirect to the client',
        security: noAuth,
        parameters: [
          query('response_type', '`code` (also responseType)', { type: 'string', enum: ['code'] }),
          query('client_id', 'The OAuth client id (also clientId)'),
          query('redirect_uri', "Exactly one of the credential's redirect URIs (also redirectUri)"),
          query('scope', "Space- or comma-separated scopes; those the member's role does not allow are shown and left out"),
          query('state', 'Returned as is'),
          query(
            'code_challenge',
            'PKCE: base64url(SHA-256(verifier)), 43 characters (also codeChallenge); recommended, required of public clients and of credentials with `requirePkce`',
          ),
          query('code_challenge_method', '`S256` (also codeChallengeMethod)', { type: 'string', enum: ['S256'] }),
        ],
        responses: {
          '200': { description: 'The sign-in or consent page', content: { 'text/html': { schema: { type: 'string' } } } },
          '303': {
            description: 'To redirect_uri with `code`, `state` and `iss`, or with `error` (access_denied, invalid_scope, invalid_request...)',
            headers: { Location: { schema: { type: 'string' } } },
          },
          '400': {
            description: 'An unknown client or an unregistered redirect URI: an error page, never a redirect',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          '403': {
            description: "The user is not a member of the credential's business, or their role allows none of the scopes",
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    '/oauth/token': {
      post: {
        operationId: 'oauthToken',
        tags: ['OAuth'],
        summary: 'Token endpoint: authorization_code, refresh_token (rotated), client_credentials',
        security: clientAuth,
        requestBody: tokenBody,
        responses: {
          '200': {
            description: "A JSON request gets Token; a form request RFC 6749's TokenRfc",
            content: { 'application/json': { schema: { oneOf: [ref('Token'), ref('TokenRfc')] } } },
          },
          '400': oauthError('invalid_request, invalid_grant, unsupported_grant_type, invalid_scope, unauthorized_client'),
          '401': oauthError('invalid_client: unknown client or wrong secret', basicChallenge),
          '413': oauthError('Body over 1 MiB'),
          '415': oauthError('Neither JSON nor a form'),
        },
      },
    },
    '/oauth/revoke': {
      post: {
        operationId: 'oauthRevoke',
        tags: ['OAuth'],
        summary: 'RFC 7009: revoke an access or refresh token (a refresh token ends its whole family); 200 for unknown tokens too',
        security: clientAuth,
        requestBody: tokenParameterBody,
        responses: {
          '200': json({ type: 'object' }, 'Revoked, or nothing to revoke'),
          '400': oauthError('invalid_request'),
          '401': oauthError('invalid_client', basicChallenge),
        },
      },
    },
    '/oauth/introspect': {
      post: {
        operationId: 'oauthIntrospect',
        tags: ['OAuth'],
        summary: "RFC 7662: whether a token of the client's own business is active, and its claims",
        security: clientAuth,
        requestBody: tokenParameterBody,
        responses: {
          '200': json(ref('Introspection'), '{"active": false} for anything not active or not of this business'),
          '400': oauthError('invalid_request'),
          '401': oauthError('invalid_client', basicChallenge),
        },
      },
    },
    '/oauth/me': {
      get: {
        operationId: 'oauthMe',
        tags: ['OAuth'],
        summary: "The access token's user",
        security: [{ bearerAuth: [] }],
        responses: {
          '200': json({ type: 'object', required: ['data', 'object'], properties: { data: { type: 'object' }, object: { const: 'user' } } }, 'The user'),
          '401': oauthError('invalid_token', bearerChallenge),
        },
      },
    },
    '/oauth/certs': {
      get: {
        operationId: 'oauthCerts',
        tags: ['OAuth'],
        summary: 'JWKS: the public keys that sign access tokens (RS512)',
        security: noAuth,
        responses: { '200': json(ref('Jwks'), 'The keys') },
      },
    },
    '/.well-known/oauth-authorization-server': {
      get: {
        operationId: 'oauthMetadata',
        tags: ['OAuth'],
        summary: 'RFC 8414 authorization server metadata',
        security: noAuth,
        responses: { '200': json(ref('AuthorizationServerMetadata'), 'The metadata') },
      },
    },
    '/webhooks/custom/{business}': {
      post: {
        operationId: 'customOrderWebhook',
        tags: ['Custom order webhook'],
        summary: 'Push an order (idempotent on externalOrderId + externalLocationId); a repeat updates it and answers the same',
        description:
          'Money fields take numbers or money strings ("Rs. 1,250.00"). `payment: true` makes the order ACCEPTED, otherwise PENDING. At least one `metadata` entry. See docs/custom-webhook.md.',
        security: [{ webhookSecret: [] }],
        parameters: [{ name: 'business', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: { 'application/json': { schema: ref('CustomOrderWebhookBody') } } },
        responses: {
          '200': json(
            { type: 'object', required: ['data', 'url'], properties: { data: order, url: str("The order's REST path") } },
            'The order as stored (created or repeated)',
          ),
          '400': { $ref: '#/components/responses/BadRequest' },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '413': { $ref: '#/components/responses/PayloadTooLarge' },
          '415': { $ref: '#/components/responses/UnsupportedMediaType' },
        },
      },
    },
    '/v2/businesses/{business}/surveys/{survey}/qr': {
      get: {
        operationId: 'surveyQrCode',
        tags: ['Surveys'],
        summary: 'A printable QR code of the survey link (ch=qr), as SVG or PNG',
        security: [{ oauth2: ['surveys:read'] }, { bearerAuth: [] }],
        parameters: [
          { name: 'business', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'survey', in: 'path', required: true, schema: { type: 'string' } },
          query('format', 'Image format', { type: 'string', enum: ['svg', 'png'], default: 'svg' }),
          query('size', 'Width and height in pixels', { type: 'integer', minimum: 64, maximum: 2048, default: 512 }),
          query('location', 'A location id: the link picks it by its metadata (location:metadata)'),
        ],
        responses: {
          '200': {
            description: 'The image, as an attachment',
            headers: {
              'X-Survey-Link': { description: 'The link the code holds', schema: { type: 'string' } },
              'Content-Disposition': { schema: { type: 'string' } },
            },
            content: { 'image/svg+xml': { schema: { type: 'string' } }, 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } },
          },
          '400': { $ref: '#/components/responses/BadRequest' },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '403': { $ref: '#/components/responses/Forbidden' },
          '404': { $ref: '#/components/responses/NotFound' },
          '429': json(ref('Error'), "The caller's API quota is spent (a PNG weighs by its pixels, a code already drawn one unit): see Retry-After"),
          '503': json(ref('Error'), 'Too many codes are being drawn at once: see Retry-After'),
        },
      },
    },
  };
}
