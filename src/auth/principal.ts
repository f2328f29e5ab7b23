import type { Scope } from './scopes.js';

/** Who a verified access token acts for: one user, for one business (its credential's), with these scopes. */
export interface Principal {
  userId: string;
  businessId: string;
  credentialId: string;
  tokenId: string;
  /** The token's scopes as narrowed to what the user's role allows (src/auth/roles.ts). */
  scopes: ReadonlySet<Scope>;
  /** The user's role in the business, as of the token's last revocation check. */
  role?: 'owner' | 'manager' | 'staff';
}
