import type { TestServer } from './server.js';

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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
