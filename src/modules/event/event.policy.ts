import { SCOPES, type Scope } from '../../auth/scopes.js';
import { EVENT_TYPES } from './event.inputs.js';

/**
 * Who may hear an event: the one rule for live subscriptions, webhook subscriptions and the delivery log. The read
 * scope that shows the resource an event is about is its type's first part (`order.created` -> orders:read).
 */
const SCOPE_OF_RESOURCE: Record<string, Scope> = {
  survey: 'surveys:read',
  surveystep: 'surveys:read',
  metric: 'metrics:read',
  location: 'locations:read',
  webhook: 'webhooks:read',
  submission: 'submissions:read',
  credential: 'credentials:read',
  member: 'members:read',
  invitation: 'members:read',
  order: 'orders:read',
  feedbackflow: 'flows:read',
  feedbackrequest: 'flows:read',
  alertrule: 'alerts:read',
  case: 'cases:read',
  casemessage: 'cases:read',
  offer: 'cases:read',
  replytemplate: 'cases:read',
  sendingbudget: 'business:read',
};

/** The read scope of an event type's resource; events:read for a type of no known resource. */
function readScopeOf(type: string): Scope {
  return SCOPE_OF_RESOURCE[type.slice(0, type.indexOf('.'))] ?? 'events:read';
}

/**
 * Whether a token with these scopes may see events of this type: `events:read` shows every event (as the events
 * list does); otherwise the read scope of the resource the event carries, so a dashboard that may read submissions
 * hears of new ones without being able to read the whole event log.
 */
export function mayHear(scopes: ReadonlySet<Scope>, type: string): boolean {
  return scopes.has('events:read') || scopes.has(readScopeOf(type));
}

/** The read scopes `scopes` lacks to hear every one of `types` (`*`: every event type), in the order of SCOPES. */
export function missingToHear(scopes: ReadonlySet<Scope>, types: readonly string[]): Scope[] {
  const all = types.includes('*') ? EVENT_TYPES : types;
  const missing = new Set(all.filter((type) => !mayHear(scopes, type)).map(readScopeOf));
  return SCOPES.filter((scope) => missing.has(scope));
}
