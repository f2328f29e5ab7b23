import { SCOPES, type Scope } from './scopes.js';

/** What a member may do in the business: owners change members, managers run it, staff read. */
export const MEMBERSHIP_ROLES = ['owner', 'manager', 'staff'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/**
 * What each role of a business may be granted (the table in docs/oauth.md). Derived by rule rather than listed, so a
 * scope added to SCOPES later lands in the right roles without touching this file:
 * - owner: every scope (only owners change members);
 * - manager: every scope but `members:write` (runs the business: surveys, orders, webhooks, credentials...);
 * - staff: `:read` scopes only, and none of the resources that hold secrets' metadata, integrations or people
 *   (credentials, webhooks, members) nor the activity log, whose events carry those same objects.
 */
const STAFF_HIDDEN_RESOURCES = new Set(['credentials', 'webhooks', 'members', 'events']);

const BY_ROLE: Record<MembershipRole, readonly Scope[]> = {
  owner: SCOPES,
  manager: SCOPES.filter((scope) => scope !== 'members:write'),
  staff: SCOPES.filter((scope) => {
    const [resource, access] = scope.split(':');
    return access === 'read' && !STAFF_HIDDEN_RESOURCES.has(resource);
  }),
};

/** The scopes a member with this role may hold, in the order of SCOPES. */
export function scopesForRole(role: MembershipRole): Scope[] {
  return [...(BY_ROLE[role] ?? [])];
}

/** `scopes` narrowed to what `role` allows, and what was left out (for the consent page and error messages). */
export function narrowToRole<S extends string>(scopes: readonly S[], role: MembershipRole): { granted: S[]; dropped: S[] } {
  const allowed = new Set<string>(BY_ROLE[role] ?? []);
  return { granted: scopes.filter((s) => allowed.has(s)), dropped: scopes.filter((s) => !allowed.has(s)) };
}

/** The roles that may hold `scope`, most powerful first: the portal says who can use what from this same table. */
export function rolesAllowing(scope: Scope): MembershipRole[] {
  return (Object.keys(BY_ROLE) as MembershipRole[]).filter((role) => BY_ROLE[role].includes(scope));
}
