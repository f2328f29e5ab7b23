import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { SCOPES, type Scope } from '../../src/auth/scopes.js';
import { buildAppSchema } from '../../src/graphql/schema.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, headersOf, type Tenant } from '../helpers/auth.js';

/**
 * Tenant isolation, for every GraphQL operation that acts for a business (a `business` argument, or `@Authorized`):
 * no token -> UNAUTHENTICATED; another business's token with every scope -> FORBIDDEN; a token of the right business
 * without the operation's scope -> FORBIDDEN; and, as a control, the right business with just that scope passes the
 * access check (whatever the operation then answers).
 *
 * Data-driven from the schema itself: the operations and their required scopes (from `@Authorized`) are read from
 * type-graphql's metadata, and arguments are generated from their types, so operations added later are covered
 * without touching this file. OVERRIDES is for an operation whose arguments need real values.
 */
const OVERRIDES: Record<string, { variables?: (t: Tenant) => Record<string, unknown> }> = {
  business: { variables: (t) => ({ id: t.businessId }) },
  updateBusiness: { variables: (t) => ({ id: t.businessId, input: {} }) },
};
/** Operations that need no token at all. */
const PUBLIC_OPERATIONS = new Set(['health']);

interface Operation {
  kind: 'query' | 'mutation';
  name: string;
  scopes: Scope[];
  document: string;
  variables: (t: Tenant) => Record<string, unknown>;
}

const FAKE_ID = 'x_01ARZ3NDEKTSV4RRFFQ69G5FAV';

function sample(type: GraphQLInputType, argName: string, t: Tenant, depth = 0): unknown {
  if (isNonNullType(type)) return sample(type.ofType, argName, t, depth);
  if (isListType(type)) return [sample(type.ofType, argName, t, depth)];
  if (isEnumType(type)) return type.getValues()[0].value;
  if (isInputObjectType(type)) {
    const out: Record<string, unknown> = {};
    if (depth > 4) return out;
    for (const field of Object.values(type.getFields())) {
      if (isNonNullType(field.type) && field.defaultValue === undefined) out[field.name] = sample(field.type, field.name, t, depth + 1);
    }
    return out;
  }
  switch (getNamedType(type).name) {
    case 'ID':
      return argName === 'business' ? t.businessId : FAKE_ID;
    case 'String':
      return 'x';
    case 'Int':
      return 0;
    case 'Float':
      return 1;
    case 'Boolean':
      return true;
    case 'Timestamp':
      return 0;
    case 'JSONObject':
    case 'JSON':
      return {};
    default:
      return 'x';
  }
}

function selection(field: GraphQLField<unknown, unknown>): string {
  const named = getNamedType(field.type);
  return isObjectType(named) || isInterfaceType(named) || isUnionType(named) ? ' { __typename }' : '';
}

async function operations(): Promise<Operation[]> {
  const schema = await buildAppSchema();
  const storage = getMetadataStorage();
  const scopesOf = (kind: 'query' | 'mutation', schemaName: string): Scope[] | undefined => {
    const resolver = (kind === 'query' ? storage.queries : storage.mutations).find((r) => r.schemaName === schemaName);
    const authorized = resolver && storage.authorizedFields.find((a) => a.target === resolver.target && a.fieldName === resolver.methodName);
    return authorized ? (authorized.roles as Scope[]) : undefined;
  };
  const result: Operation[] = [];
  for (const kind of ['query', 'mutation'] as const) {
    const root = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
    for (const field of Object.values(root?.getFields() ?? {})) {
      const scopes = scopesOf(kind, field.name);
      const businessScoped = field.args.some((a) => a.name === 'business');
      if (PUBLIC_OPERATIONS.has(field.name)) continue;
      if (!scopes && !businessScoped) continue;
      const required = field.args.filter((a: GraphQLArgument) => isNonNullType(a.type) && a.defaultValue === undefined);
      const decl = required.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
      const call = required.map((a) => `${a.name}: $${a.name}`).join(', ');
      result.push({
        kind,
        name: field.name,
        scopes: scopes ?? [],
        document: `${kind}${decl ? `(${decl})` : ''} { ${field.name}${call ? `(${call})` : ''}${selection(field)} }`,
        variables: OVERRIDES[field.name]?.variables ?? ((t) => Object.fromEntries(required.map((a) => [a.name, sample(a.type, a.name, t)]))),
      });
    }
  }
  return result;
}

let server: TestServer;
let owner: Tenant;
let stranger: Tenant;
let ops: Operation[];
beforeAll(async () => {
  server = await startTestServer();
  owner = await createTenant(server, { businessName: 'Owner Cafe' });
  stranger = await createTenant(server, { businessName: 'Stranger Cafe' });
  ops = await operations();
});
afterAll(() => server?.stop());

async function codeOf(op: Operation, headers: Record<string, string>): Promise<string> {
  const { body } = await server.graphql(op.document, op.variables(owner), headers);
  return body.errors?.[0]?.extensions?.code ?? 'OK';
}

async function matrix(label: string, headersFor: (op: Operation) => Promise<Record<string, string> | undefined>, expected: (code: string) => boolean) {
  const wrong: string[] = [];
  for (const op of ops) {
    const headers = await headersFor(op);
    if (!headers) continue;
    const code = await codeOf(op, headers);
    if (!expected(code)) wrong.push(`${op.name}: ${code}`);
  }
  expect([label, wrong]).toEqual([label, []]);
}

it('covers the operations that exist, with the scopes their @Authorized declares', () => {
  const names = ops.map((o) => o.name);
  if (process.env.DEBUG_MATRIX) console.log(ops.map((o) => `${o.name} [${o.scopes}]`).join('\n'));
  expect(names).toEqual(expect.arrayContaining(['business', 'credentials', 'credential', 'createCredential', 'deleteCredential']));
  const credentials = ops.find((o) => o.name === 'createCredential')!;
  expect(credentials.scopes).toEqual(['credentials:write']);
});

it('no token: UNAUTHENTICATED', async () => {
  await matrix(
    'no token',
    async () => ({}),
    (code) => code === 'UNAUTHENTICATED',
  );
});

it('a malformed or foreign token: UNAUTHENTICATED', async () => {
  await matrix(
    'bad token',
    async () => ({ authorization: 'Bearer not.a.jwt' }),
    (code) => code === 'UNAUTHENTICATED',
  );
});

it("another business's token, with every scope: FORBIDDEN", async () => {
  await matrix(
    'other business',
    async () => stranger.headers,
    (code) => code === 'FORBIDDEN',
  );
});

/** The owner's token for an operation with the scopes `scopesOf` gives it (none: passed over), one token per set. */
function tokensWith(scopesOf: (op: Operation) => Scope[] | undefined) {
  const tokens = new Map<string, Promise<Record<string, string>>>();
  return async (op: Operation) => {
    const scopes = scopesOf(op);
    if (!scopes) return undefined;
    const key = scopes.join() || '-';
    if (!tokens.has(key)) tokens.set(key, createTenantFor(owner, scopes));
    return tokens.get(key);
  };
}

it('a token of the business without the needed scope: FORBIDDEN', async () => {
  await matrix(
    'missing scope',
    tokensWith((op) => (op.scopes.length ? SCOPES.filter((s) => !op.scopes.includes(s)) : undefined)),
    (code) => code === 'FORBIDDEN',
  );
});

it('control: the right business with just the needed scope gets past access control', async () => {
  await matrix(
    'allowed',
    tokensWith((op) => op.scopes),
    (code) => code !== 'FORBIDDEN' && code !== 'UNAUTHENTICATED',
  );
});

it("a manager's or staff member's token with every scope: FORBIDDEN wherever the role does not allow the scope, with the reason", async () => {
  const { createUser } = await import('../../src/modules/user/user.service.js');
  const { createMember } = await import('../../src/modules/member/member.service.js');
  const { scopesForRole } = await import('../../src/auth/roles.js');
  for (const role of ['manager', 'staff'] as const) {
    const email = `${role}-matrix@example.com`;
    const user = await createUser(server.orm.em.fork(), { email, password: 'a long passphrase' });
    await createMember(server.orm.em.fork(), owner.businessId, { email, role });
    const headers = await createTenantFor({ ...owner, userId: user.id }, [...SCOPES]);
    const allowed = scopesForRole(role);
    const wrong: string[] = [];
    for (const op of ops.filter((o) => o.scopes.some((s) => !allowed.includes(s)))) {
      const { body } = await server.graphql(op.document, op.variables(owner), headers);
      const error = body.errors?.[0];
      if (error?.extensions?.code !== 'FORBIDDEN' || !error.message.includes(`role in this business (${role})`))
        wrong.push(`${op.name}: ${error?.extensions?.code ?? 'OK'}`);
    }
    expect([role, wrong]).toEqual([role, []]);
  }
  expect(
    ops
      .filter((o) => o.scopes.includes('members:write'))
      .map((o) => o.name)
      .sort(),
  ).toEqual(['addMember', 'createInvitation', 'createMember', 'deleteInvitation', 'deleteMember', 'updateMember']);
});

/** A token for the owner's business and user, with these scopes. */
const createTenantFor = (tenant: Tenant, scopes: Scope[]) => headersOf(server, tenant, tenant.userId, scopes);
