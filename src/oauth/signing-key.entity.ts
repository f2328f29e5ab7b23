import { OptionalProps } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * An RSA key pair that signs access tokens (RS512). The private JWK never leaves the server: it is lazy, so only the
 * signer ever loads it. One key is active at a time; retired keys stay published (JWKS) until the tokens they
 * signed have expired.
 */
@Entity({ tableName: 'oauth_signing_key' })
export class SigningKey {
  [OptionalProps]?: 'createdAt' | 'retiredAt' | 'active';

  /** The JWT header's `kid`. */
  @PrimaryKey({ type: 'string', length: 64 })
  kid!: string;

  @Property({ type: 'json' })
  publicJwk!: Record<string, unknown>;

  @Property({ type: 'json', lazy: true })
  privateJwk!: Record<string, unknown>;

  @Index({ name: 'oauth_signing_key_active_idx' })
  @Property({ type: 'boolean' })
  active: boolean = true;

  @Property({ type: 'datetime', length: 3 })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', length: 3, nullable: true })
  retiredAt?: Date | null;
}
