import { SCOPES, isScope, type Scope } from '../../auth/scopes.js';

/** Scopes as sent: comma-separated (the spec), space-separated (RFC 6749) or a JSON array. */
export function splitScopes(raw: unknown): string[] {
  const parts = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(/[\s,]+/) : [];
  return [...new Set(parts.map((s) => s.trim()).filter(Boolean))];
}

export function unknownScopes(scopes: string[]): string[] {
  return scopes.filter((s) => !isScope(s));
}

/** In the order of SCOPES, so tokens and pages list them the same way. */
export function orderScopes(scopes: string[]): Scope[] {
  return SCOPES.filter((s) => scopes.includes(s));
}

/** Plain words for the consent page. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'surveys:read': 'See your surveys and their steps',
  'surveys:write': 'Create, change and delete your surveys and their steps',
  'submissions:read': "See your customers' survey answers",
  'submissions:write': 'Record survey answers',
  'metrics:read': 'See your metrics',
  'metrics:write': 'Create, change and delete metrics',
  'orders:read': 'See your orders',
  'orders:write': 'Create and change orders',
  'webhooks:read': 'See your webhooks',
  'webhooks:write': 'Create, change and delete webhooks',
  'events:read': 'See the activity log of your business',
  'credentials:read': 'See the applications connected to your business',
  'credentials:write': 'Connect and disconnect applications',
  'locations:read': 'See your locations',
  'locations:write': 'Create, change and delete locations',
  'analytics:read': 'See reports and analytics',
  'members:read': 'See who works for your business and their roles',
  'members:write': 'Add and remove the staff of your business and change their roles',
  'flows:read': 'See your feedback flows and the feedback requests they sent',
  'flows:write': 'Create, change and delete feedback flows',
  'alerts:read': 'See your alert rules',
  'alerts:write': 'Create, change and delete alert rules',
  'cases:read': "See unhappy guests' cases, their messages and offers",
  'cases:write': 'Answer, assign and resolve cases, and send offers',
  'business:read': "See your business's settings: its brand, review link, reply-to address and the themes its guests' comments are read with",
  'business:write':
    "Change your business's name shown to guests, brand colour, logo, review link, reply-to address and the themes its guests' comments are read with",
};
