import type { Session } from './auth';

/** What main.tsx gives every screen: the session, the address it was opened at and the route's parameters. */
export interface ScreenProps {
  session: Session;
  path: string;
  query: URLSearchParams;
  params: string[];
}
