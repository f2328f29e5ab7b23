import type { Scope } from './scopes.js';

/** Who a verified access token acts for: one user, for one business (its credential's), with these scopes. */
export interface Principal {
  userId: string;
  businessId: string;
  credentialId: string;
  tokenId: string;
  scopes: ReadonlySet<Scope>;
}
