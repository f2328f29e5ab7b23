import { OptionalProps } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { Business } from '../business/index.js';
import { Credential } from './credential.entity.js';
import { User } from '../user/index.js';

/**
 * One issued token: an access token (a JWT whose `jti` is this id) and, optionally, its refresh token (stored only as
 * a hash). Refreshing rotates: the row's refresh token is marked used and a new row joins the same family. Deleting
 * the credential deletes its rows (cascade), which revokes them: a token without a row is never accepted.
 */
@Entity({ tableName: 'oauth_token' })
@Index({ name: 'oauth_token_family_idx', properties: ['family'] })
@Index({ name: 'oauth_token_credential_idx', properties: ['credential'] })
export class OAuthToken {
  [OptionalProps]?: 'createdAt' | 'revokedAt' | 'refreshUsedAt' | 'refreshHash' | 'refreshExpiresAt' | 'authorizationCode';

  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('token');

  /** The id of the first token of a refresh chain: reuse of a rotated refresh token revokes the whole family. */
  @Property({ type: 'string', length: 40 }) family!: string;
  @ManyToOne(() => Credential, { mapToPk: true, deleteRule: 'cascade' }) credential!: string;
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' }) business!: string;

  @Index({ name: 'oauth_token_user_idx' })
  @ManyToOne(() => User, { mapToPk: true, deleteRule: 'cascade' })
  user!: string;
  @Property({ type: 'json' }) scopes!: string[];

  /** SHA-256 of the refresh token; null when none was issued (client credentials). */
  @Unique({ name: 'oauth_token_refresh_hash_unique' })
  @Property({ type: 'string', length: 64, nullable: true })
  refreshHash?: string | null;
  @Property({ type: 'datetime', length: 3 }) accessExpiresAt!: Date;
  @Property({ type: 'datetime', length: 3, nullable: true }) refreshExpiresAt?: Date | null;

  /** Set when the refresh token was exchanged (rotated). */
  @Property({ type: 'datetime', length: 3, nullable: true }) refreshUsedAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) revokedAt?: Date | null;

  /** Hash of the authorization code that issued the family's first token: a replayed code revokes the family. */
  @Property({ type: 'string', length: 64, nullable: true }) authorizationCode?: string | null;
  @Property({ type: 'datetime', length: 3 }) createdAt: Date = new Date();
}
