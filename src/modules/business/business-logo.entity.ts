import { Entity, OneToOne, Property } from '@mikro-orm/decorators/legacy';
import { Business } from './business.entity.js';

/**
 * A business's logo: the checked image (decoded in rest-adapter/image.pool.ts) as uploaded, one row a business,
 * replaced by the next upload. Apart from the business row so that reading a business never carries the bytes.
 */
@Entity({ tableName: 'business_logo' })
export class BusinessLogo {
  @OneToOne(() => Business, { primary: true, mapToPk: true, deleteRule: 'cascade', owner: true }) business!: string;

  /** `<sha256 hex>.<png|jpg|webp>`: the last part of its address. */
  @Property({ type: 'string', length: 80 }) file!: string;
  @Property({ type: 'string', length: 20 }) contentType!: string;
  @Property({ type: 'blob' }) data!: Buffer;
  @Property({ type: 'integer' }) width!: number;
  @Property({ type: 'integer' }) height!: number;
  @Property({ type: 'datetime', length: 3 }) updatedAt: Date = new Date();
}
