import { startTestServer, type TestServer } from './server.js';
import { createTenant } from './auth.js';

/** Runs an operation as a tenant and returns `data`; fails the test on any GraphQL error. */
export function client(server: TestServer, headers: Record<string, string>) {
  const raw = (query: string, variables?: Record<string, unknown>) => server.graphql(query, variables, headers);
  return {
    raw,
    async data(query: string, variables?: Record<string, unknown>) {
      const { body } = await raw(query, variables);
      if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
      return body.data;
    },
    /** The first error's extensions (code, details). */
    async error(query: string, variables?: Record<string, unknown>) {
      const { body } = await raw(query, variables);
      if (!body.errors?.length) throw new Error(`expected an error, got ${JSON.stringify(body.data)}`);
      return { message: body.errors[0].message as string, ...(body.errors[0].extensions as { code: string; details?: { field: string; message: string }[] }) };
    },
  };
}
export type Client = ReturnType<typeof client>;

/**
 * Another business's `name` (its `id`) read, updated with `input` and deleted by `c` in its own business `b`: each is
 * NOT_FOUND, as if it did not exist.
 */
export async function expectOthersNotFound(c: Client, b: string, id: string, name: string, input = '{name: "x"}') {
  const type = name[0].toUpperCase() + name.slice(1);
  for (const operation of [
    `query($b: ID!, $id: ID!) { ${name}(business: $b, id: $id) { id } }`,
    `mutation($b: ID!, $id: ID!) { update${type}(business: $b, id: $id, input: ${input}) { id } }`,
    `mutation($b: ID!, $id: ID!) { delete${type}(business: $b, id: $id) }`,
  ]) {
    expect({ operation, code: (await c.error(operation, { b, id })).code }).toEqual({ operation, code: 'NOT_FOUND' });
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Most domain tests act as business A and check that business B (another tenant) cannot see or touch it. */
export async function startWithTwoTenants() {
  const server = await startTestServer();
  const ta = await createTenant(server);
  const tb = await createTenant(server);
  return { server, ta, tb, a: client(server, ta.headers), b: client(server, tb.headers), busA: ta.businessId, busB: tb.businessId };
}
export type TwoTenants = Awaited<ReturnType<typeof startWithTwoTenants>>;

/**
 * The GraphQL domain tests' set-up, written once: the server and the two tenants start before the file's tests
 * (`bind` hands them to the file's variables) and stop after them. A file's own beforeAll runs after this one.
 */
export function useTwoTenants(bind: (tenants: TwoTenants) => void): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    const tenants = await startWithTwoTenants();
    server = tenants.server;
    bind(tenants);
  });
  afterAll(() => server?.stop());
}
