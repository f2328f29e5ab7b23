import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { ERROR_CODES } from '../src/shared/errors.js';
import { MAX_EXPAND_DEPTH } from './query.parsers.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../src/kit/list/list.limits.js';
import { isQueryRoute, type RouteDef } from './route.table.js';
import { isRelationType, routeModel } from './schema.model.js';
import { getMetadataStorage } from 'type-graphql';
import { securitySchemes, surfacePaths, surfaceSchemas } from './openapi.surface.js';

/** The scopes an operation's `@Authorized` names (type-graphql's metadata): what its OAuth2 requirement lists. */
function scopesOf(route: RouteDef): string[] {
  const storage = getMetadataStorage();
  const kind = isQueryRoute(route) ? storage.queries : storage.mutations;
  const resolver = kind.find((r) => r.schemaName === route.field);
  const authorized = resolver && storage.authorizedFields.find((a) => a.target === resolver.target && a.fieldName === resolver.methodName);
  return (authorized?.roles as string[] | undefined) ?? [];
}

type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  Timestamp: { type: 'integer', description: 'Milliseconds since the Unix epoch' },
  JSON: {},
  JSONObject: { type: 'object' },
  MoneyInput: { oneOf: [{ type: 'number' }, { type: 'string', description: 'A money string such as "Rs. 1,250.00"' }] },
};

/** A resource's `object` value is its type's name in lower case (FeedbackFlow: feedbackflow). */
const objectOf = (type: { name: string }) => type.name.toLowerCase();
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { oneOf: [schema, { type: 'null' }] };
}

/** OpenAPI 3.1 generated from the route table and the schema: the same sources as the adapter itself. */
export function openApiDocument(schema: GraphQLSchema, routes: RouteDef[], info: { version: string } = { version: '2.0.0' }) {
  const schemas: Record<string, JsonSchema> = {};

  const named = (type: GraphQLNamedType): JsonSchema => {
    if (isScalarType(type)) return SCALARS[type.name] ?? {};
    if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.name) };
    if (!schemas[type.name]) {
      schemas[type.name] = {}; // placeholder: cycles (Survey.steps -> SurveyStep.survey)
      schemas[type.name] = isObjectType(type) ? objectSchema(type) : isInputObjectType(type) ? inputSchema(type) : {};
    }
    return ref(type.name);
  };

  const typeSchema = (type: GraphQLOutputType | GraphQLInputType, relation: boolean): JsonSchema => {
    const inner = getNullableType(type);
    let schema: JsonSchema;
    if (isListType(inner)) schema = { type: 'array', items: typeSchema(inner.ofType, relation) };
    else {
      const n = getNamedType(inner);
      schema = named(n);
      if (relation && isObjectType(n) && isRelationType(n)) {
        schema = { oneOf: [{ type: 'string', description: `${n.name} id (the full object when expanded)` }, schema] };
      }
    }
    return isNonNullType(type) ? schema : nullable(schema);
  };

  function objectSchema(type: import('graphql').GraphQLObjectType): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      if (field.args.length) continue;
      properties[field.name] = { ...typeSchema(field.type, true), ...(field.description ? { description: field.description } : {}) };
      if (isNonNullType(field.type)) required.push(field.name);
    }
    return { type: 'object', ...(type.description ? { description: type.description } : {}), properties, required };
  }

  function inputSchema(type: import('graphql').GraphQLInputObjectType): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      properties[field.name] = { ...typeSchema(field.type, false), ...(field.description ? { description: field.description } : {}) };
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
    }
    return { type: 'object', properties, required, additionalProperties: false };
  }

  schemas.Error = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['status', 'code', 'message'],
        properties: {
          status: { type: 'integer' },
          code: { type: 'string', enum: [...ERROR_CODES] },
          message: { type: 'string' },
          details: {
            type: 'array',
            items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
          },
          requestId: { type: 'string' },
        },
      },
    },
  };

  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } });
  const responses = {
    BadRequest: errorResponse('A malformed query parameter or request body; `details` names each field'),
    Unauthorized: {
      ...errorResponse('Missing or invalid access token (or, at the webhook, secret)'),
      headers: {
        'WWW-Authenticate': {
          description: '`Bearer`; with `error="invalid_token"` and a description when a token was refused (RFC 6750)',
          schema: { type: 'string' },
        },
      },
    },
    Forbidden: errorResponse('The token does not act for this business or lacks the scope'),
    NotFound: errorResponse('Unknown id in this business (also a malformed id or one of another business)'),
    Conflict: errorResponse('The change conflicts with the current state'),
    PayloadTooLarge: errorResponse('Body over 1 MiB'),
    UnsupportedMediaType: errorResponse('Body is not JSON'),
  };

  const queryParameters: Record<string, JsonSchema> = {
    page: { name: 'page', in: 'query', description: 'Page number, from 0', schema: { type: 'integer', minimum: 0, default: 0 } },
    pageSize: {
      name: 'pageSize',
      in: 'query',
      description: `Items per page, 1 to ${MAX_PAGE_SIZE}`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
    },
    sorts: {
      name: 'sorts',
      in: 'query',
      description: 'JSON object `{"field": ..., "order": "asc"|"desc"}`; repeatable. Default createdAt desc, id desc',
      schema: { type: 'array', items: { type: 'string' } },
      style: 'form',
      explode: true,
      example: ['{"field":"createdAt","order":"desc"}'],
    },
    filters: {
      name: 'filters',
      in: 'query',
      description:
        'JSON object `{"field": ..., "type": "eq|ne|gt|gte|lt|lte|in|contains", "value": ...}`; repeatable, ANDed. Timestamps in ms; `in` takes an array',
      schema: { type: 'array', items: { type: 'string' } },
      style: 'form',
      explode: true,
      example: ['{"field":"createdAt","type":"gte","value":1767225600000}'],
    },
    expand: {
      name: 'expand',
      in: 'query',
      description: `Comma-separated relations to return as full objects; dotted for nesting, at most ${MAX_EXPAND_DEPTH} levels`,
      schema: { type: 'string' },
    },
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const model = routeModel(schema, route);
    const item = model.itemType ? named(model.itemType) : model.variants ? { oneOf: model.variants.map((t) => named(t)) } : undefined;
    const parameters: unknown[] = Object.keys(route.params).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    for (const name of model.parameters) {
      if (route.kind === 'report') {
        const arg = model.field.args.find((a) => a.name === name);
        const type = arg ? arg.type.toString() : 'csv | json';
        const about = arg
          ? `${arg.description ?? ''} GraphQL type ${type}${arg.type.toString().includes('[') ? ' (comma-separated)' : ''}`
          : '`csv` answers text/csv (as does `Accept: text/csv`)';
        parameters.push({
          name,
          in: 'query',
          required: !!arg && type.endsWith('!') && arg.defaultValue === undefined,
          description: about.trim(),
          schema: { type: 'string' },
        });
        continue;
      }
      const p = { ...queryParameters[name] };
      if (name === 'sorts' && model.conventions) p.description = `${p.description}. Fields: ${model.conventions.sortFields.join(', ')}`;
      if (name === 'filters' && model.conventions) {
        p.description = `${p.description}. Fields: ${Object.entries(model.conventions.filterFields)
          .map(([f, t]) => `${f} (${t.join(' ')})`)
          .join(', ')}`;
      }
      if (name === 'expand' && model.graph) p.description = `${p.description}. Top level: ${Object.keys(model.graph.types[model.graph.root]).join(', ')}`;
      parameters.push(p);
    }
    let success: Record<string, unknown>;
    if (route.status === 204) success = { description: 'Done, no content' };
    else if (route.kind === 'compute') {
      success = {
        description: `Rows of ${route.field}, one per item of the body, in order`,
        content: {
          'application/json': {
            schema: { type: 'object', required: ['object', 'data'], properties: { object: { const: 'list' }, data: { type: 'array', items: item } } },
          },
        },
      };
    } else if (route.kind === 'report') {
      success = {
        description: `Rows of ${route.field}`,
        content: {
          'application/json': {
            schema: { type: 'object', required: ['object', 'data'], properties: { object: { const: 'list' }, data: { type: 'array', items: item } } },
          },
          'text/csv': { schema: { type: 'string' } },
        },
      };
    } else if (route.kind === 'list') {
      success = {
        description: `A page of ${route.object}s`,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['object', 'data', 'page', 'pageSize', 'total', 'hasMore', 'links'],
              properties: {
                object: { const: 'list' },
                data: { type: 'array', items: item },
                page: { type: 'integer' },
                pageSize: { type: 'integer' },
                total: { type: 'integer' },
                hasMore: { type: 'boolean' },
                links: {
                  type: 'object',
                  description: 'The same request for the next and the previous page (path and query), or null',
                  required: ['next', 'previous'],
                  properties: { next: { type: ['string', 'null'] }, previous: { type: ['string', 'null'] } },
                },
              },
            },
          },
        },
      };
    } else {
      success = {
        description: `The ${route.object}`,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['data', 'object'],
              properties: { data: item, object: model.variants ? { type: 'string', enum: model.variants.map(objectOf) } : { const: route.object } },
            },
          },
        },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: route.deprecated ? `${route.field}V1` : route.field,
      summary: route.summary,
      tags: [route.tag],
      security: [{ oauth2: scopesOf(route) }, { bearerAuth: [] }],
      parameters,
      responses: {
        [String(route.status)]: success,
        '400': { $ref: '#/components/responses/BadRequest' },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '403': { $ref: '#/components/responses/Forbidden' },
        '404': { $ref: '#/components/responses/NotFound' },
        ...(route.method !== 'GET' ? { '409': { $ref: '#/components/responses/Conflict' } } : {}),
        ...(model.inputType
          ? { '413': { $ref: '#/components/responses/PayloadTooLarge' }, '415': { $ref: '#/components/responses/UnsupportedMediaType' } }
          : {}),
      },
    };
    if (route.deprecated) operation.deprecated = true;
    if (model.inputType) {
      operation.requestBody = {
        required: route.kind === 'create' || route.kind === 'action' || route.kind === 'compute',
        content: { 'application/json': { schema: named(model.inputType) } },
      };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }

  for (const [path, operations] of Object.entries(surfacePaths(schema, named, schemas))) paths[path] = { ...paths[path], ...operations };
  Object.assign(schemas, surfaceSchemas());

  return {
    openapi: '3.1.0',
    info: {
      title: 'Feedback service REST API',
      version: info.version,
      description:
        'The REST API (every operation runs the GraphQL API in-process), the OAuth 2.0 endpoints and the custom order webhook. Ids are prefixed strings; timestamps are milliseconds since the Unix epoch.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set([...routes.map((r) => r.tag), 'OAuth', 'Custom order webhook'])].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: securitySchemes(),
      responses,
      schemas,
    },
  };
}
