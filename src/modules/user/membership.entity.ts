import { Entity, Enum, Index, ManyToOne, PrimaryKey, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { Timestamped } from '../../shared/timestamps.js';
import { Business } from '../business/index.js';
import { User } from './user.entity.js';

import { MEMBERSHIP_ROLES, type MembershipRole } from '../../auth/roles.js';

export { MEMBERSHIP_ROLES, type MembershipRole };

@Entity({ tableName: 'membership' })
@Unique({ name: 'membership_user_business_unique', properties: ['user', 'business'] })
export class Membership extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('membership');
  @ManyToOne(() => User, { mapToPk: true, deleteRule: 'cascade' }) user!: string;

  @Index({ name: 'membership_business_idx' })
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' })
  business!: string;
  @Enum({ items: () => MEMBERSHIP_ROLES }) role!: MembershipRole;
}
