import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * Failed sign-ins per e-mail and per client address, so password guessing is slowed in every server process alike
 * (an in-memory counter would reset per process and per restart).
 */
@Entity({ tableName: 'sign_in_throttle' })
export class SignInThrottle {
  /** `email:<address>` or `ip:<address>`. */
  @PrimaryKey({ type: 'string', length: 400 })
  key!: string;

  @Property({ type: 'integer' })
  failures!: number;

  @Property({ type: 'datetime', length: 3 })
  windowStartedAt!: Date;

  @Property({ type: 'datetime', length: 3, nullable: true })
  lockedUntil?: Date | null;
}
