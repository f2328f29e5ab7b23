import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * Failed sign-ins per (e-mail, client address), per address and per e-mail, so password guessing is slowed in every
 * server process alike (an in-memory counter would reset per process and per restart). See src/oauth/sign-in.limit.ts.
 */
@Entity({ tableName: 'sign_in_throttle' })
export class SignInThrottle {
  /** `email-ip:<address>|<e-mail>`, `ip:<address>` or `email:<e-mail>` (hashed when long). */
  @PrimaryKey({ type: 'string', length: 400 }) key!: string;
  @Property({ type: 'integer' }) failures!: number;
  @Property({ type: 'datetime', length: 3 }) windowStartedAt!: Date;
}
