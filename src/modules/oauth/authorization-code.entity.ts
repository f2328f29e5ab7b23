import { OptionalProps } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Business } from '../business/index.js';
import { Credential } from './credential.entity.js';
import { User } from '../user/index.js';

/** An authorization code (RFC 6749 4.1): stored as a hash, single use, 5 minutes, bound to client, redirect URI, PKCE. */
@Entity({ tableName: 'oauth_authorization_code' })
export class AuthorizationCode {
  [OptionalProps]?: 'createdAt' | 'usedAt' | 'codeChallenge' | 'family';

  /** SHA-256 of the code. */
  @PrimaryKey({ type: 'string', length: 64 }) codeHash!: string;
  @ManyToOne(() => Credential, { mapToPk: true, deleteRule: 'cascade' }) credential!: string;
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' }) business!: string;
  @ManyToOne(() => User, { mapToPk: true, deleteRule: 'cascade' }) user!: string;
  @Property({ type: 'text' }) redirectUri!: string;
  @Property({ type: 'json' }) scopes!: string[];

  /** PKCE S256 challenge, when the client sent one. */
  @Property({ type: 'string', length: 128, nullable: true }) codeChallenge?: string | null;
  @Property({ type: 'datetime', length: 3 }) expiresAt!: Date;
  @Property({ type: 'datetime', length: 3, nullable: true }) usedAt?: Date | null;

  /** The token family issued from this code (to revoke on replay). */
  @Property({ type: 'string', length: 40, nullable: true }) family?: string | null;
  @Property({ type: 'datetime', length: 3 }) createdAt: Date = new Date();
}
