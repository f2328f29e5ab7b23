import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { RotatingKey } from '../../kit/keys/rotating-key.entity.js';

/**
 * An RSA key pair that signs access tokens (RS512). The private JWK never leaves the server: it is lazy, so only the
 * signer ever loads it. One key is active at a time; retired keys stay published (JWKS) until the tokens they
 * signed have expired.
 */
@Entity({ tableName: 'oauth_signing_key' })
@Index({ name: 'oauth_signing_key_active_idx', properties: ['active'] })
export class SigningKey extends RotatingKey {
  /** The JWT header's `kid`. */
  @PrimaryKey({ type: 'string', length: 64 }) kid!: string;
  @Property({ type: 'json' }) publicJwk!: Record<string, unknown>;
  @Property({ type: 'json', lazy: true }) privateJwk!: Record<string, unknown>;
}
