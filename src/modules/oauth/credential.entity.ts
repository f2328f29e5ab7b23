import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { Timestamped } from '../../shared/timestamps.js';
import { Business } from '../business/index.js';
import { User } from '../user/index.js';

/**
 * An OAuth client of one business; or, with no business and no secret, a first-party public client built in by a
 * migration (the business portal, PORTAL_CLIENT_ID), whose user chooses the business at sign-in. Business-scoped
 * queries never see the latter: its business is null. (Not a BusinessOwnedEntity for that one nullable column.)
 */
@Entity({ tableName: 'credential' })
@Index({ name: 'credential_business_created_idx', properties: ['business', 'createdAt', 'id'] })
export class Credential extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('credential');
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', nullable: true }) business!: string | null;
  @Property({ type: 'string', length: 200 }) name!: string;

  @Unique({ name: 'credential_client_id_unique' })
  @Property({ type: 'string', length: 64 })
  clientId!: string;

  /** SHA-256 of the secret (a 256-bit random value, so a slow hash adds nothing); shown once at creation. Null: a public client. */
  @Property({ type: 'string', length: 64, lazy: true, nullable: true }) secretHash!: string | null;
  @Property({ type: 'json' }) validRedirectUris: Opt<string[]> = [];

  /** The user a client_credentials token acts for (null for the built-in public client). */
  @ManyToOne(() => User, { mapToPk: true, deleteRule: 'restrict', nullable: true }) createdBy!: string | null;

  /**
   * The most a client_credentials token of this credential may carry (also capped by its creator's role when the
   * token is issued): at most what the token that created it held, so consent to one scope never mints another.
   */
  @Property({ type: 'json' }) scopes: Opt<string[]> = [];

  /**
   * OAuth 2.1 for this client, by its owner's choice: its authorization requests must carry PKCE and its code
   * exchanges the redirect URI (pkce.rules.ts). Off, it may follow the interface document's flow, which has neither.
   */
  @Property({ type: 'boolean' }) requirePkce: Opt<boolean> = false;
}

/** The business portal's client id (a public client with PKCE; its redirect address is `${PUBLIC_URL}/portal/callback`). */
export const PORTAL_CLIENT_ID = 'portal';
/** Its row, created by Migration20261123175708: a fixed id so the migration and the code agree. */
export const PORTAL_CREDENTIAL_ID = 'cred_00000000000000000000P0RTA1';
