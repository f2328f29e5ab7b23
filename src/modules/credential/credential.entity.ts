import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/business-owned.entity.js';
import { User } from '../user/user.entity.js';

/** An OAuth client of one business. */
@Entity({ tableName: 'credential' })
@Index({ name: 'credential_business_created_idx', properties: ['business', 'createdAt', 'id'] })
export class Credential extends BusinessOwnedEntity {
  id = newId('credential');

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Unique({ name: 'credential_client_id_unique' })
  @Property({ type: 'string', length: 64 })
  clientId!: string;

  /** SHA-256 of the secret (a 256-bit random value, so a slow hash adds nothing); shown once at creation. */
  @Property({ type: 'string', length: 64, lazy: true })
  secretHash!: string;

  @Property({ type: 'json' })
  validRedirectUris: Opt<string[]> = [];

  /** The user a client_credentials token acts for. */
  @ManyToOne(() => User, { mapToPk: true, deleteRule: 'restrict' })
  createdBy!: string;
}
