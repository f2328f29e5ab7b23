import type { TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/auth.js';

export interface RestAnswer {
  status: number;
  body: any;
  headers: Headers;
}

/** One REST call over real HTTP; a JSON body when given; the answer parsed when it has one. */
export async function rest(
  server: TestServer,
  method: string,
  path: string,
  options: { tenant?: Tenant; headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
): Promise<RestAnswer> {
  const headers: Record<string, string> = { ...(options.tenant?.headers ?? {}), ...(options.headers ?? {}) };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** `?filters=...&filters=...` from objects. */
export function qs(params: Record<string, unknown | unknown[]>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) search.append(name, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return `?${search.toString()}`;
}

export const expectError = (answer: RestAnswer, status: number, code?: string) => {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { error: expect.objectContaining({ status, ...(code ? { code } : {}), message: expect.any(String), requestId: expect.any(String) }) },
  });
  expect(JSON.stringify(answer.body)).not.toMatch(/Variable \$|GraphQL|Cannot query field/);
};
