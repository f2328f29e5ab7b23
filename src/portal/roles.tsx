import type { ComponentChildren } from 'preact';
import type { Scope } from '../auth/scopes';
import { rolesAllowing } from '../auth/roles';
import type { Session } from './auth';

/** Whether this member's token carries `scope`: what the server will allow, so a control it would refuse is not offered. */
export const may = (session: Session, scope: Scope) => session.scopes.includes(scope);

const ROLE_NAMES = { owner: 'owners', manager: 'managers', staff: 'staff' } as const;

/** "owners and managers", "owners": who may hold `scope`, read from the table the server enforces. */
export function whoMay(scope: Scope): string {
  const names = rolesAllowing(scope).map((role) => ROLE_NAMES[role]);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? 'nobody');
}

/** What a member sees instead of controls their role does not include: "Only <who> <children>". */
export function ReadOnlyNote({ scope, children }: { scope: Scope; children: ComponentChildren }) {
  return (
    <p class="empty" role="note">
      Only {whoMay(scope)} {children}
    </p>
  );
}
