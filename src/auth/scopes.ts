/** Every scope a token can carry (the table in docs/oauth.md). Each GraphQL operation declares the one it needs. */
export const SCOPES = [
  'surveys:read',
  'surveys:write',
  'submissions:read',
  'submissions:write',
  'metrics:read',
  'metrics:write',
  'orders:read',
  'orders:write',
  'webhooks:read',
  'webhooks:write',
  'events:read',
  'credentials:read',
  'credentials:write',
  'locations:read',
  'locations:write',
  'analytics:read',
  'members:read',
  'members:write',
  'flows:read',
  'flows:write',
  'alerts:read',
  'alerts:write',
  'cases:read',
  'cases:write',
  'business:read',
  'business:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
