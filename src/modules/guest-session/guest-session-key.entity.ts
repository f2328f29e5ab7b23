import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { RotatingKey } from '../../kit/keys/rotating-key.entity.js';

/**
 * An HMAC-SHA256 key that signs guests' session cookies (src/guest/guest.session.ts). One key is active at a time and
 * signs new cookies; a retired key still verifies the cookies it signed until they have expired (RESUME_DAYS).
 * `npm run admin -- rotate-keys` rotates it with the token-signing key.
 */
@Entity({ tableName: 'guest_session_key' })
@Index({ name: 'guest_session_key_active_idx', properties: ['active'] })
export class GuestSessionKey extends RotatingKey {
  /** Named in the cookie, so a cookie finds the key that signed it. */
  @PrimaryKey({ type: 'string', length: 32 }) kid!: string;

  /** 32 random bytes, base64url. */
  @Property({ type: 'string', length: 64, lazy: true }) secret!: string;
}
