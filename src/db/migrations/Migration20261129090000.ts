import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 39: the fan-out of events into webhook deliveries is one statement (webhook.repo.ts), so a delivery's id is
 * made by PostgreSQL too: the same id as deliveryId (webhook-delivery.entity.ts) gives, which test/partitions holds
 * them to. Its event's time (the 10 characters after the event id's prefix), then 16 Crockford base32 characters of
 * the first 80 bits of sha256("<event id> <webhook id>").
 */
export class Migration20261129090000 extends Migration {

  override name = 'Migration20261129090000';

  override up(): void | Promise<void> {
    // 80 bits are 20 hex digits; each 5 of them (20 bits) are 4 base32 characters. PL/pgSQL, so the hash is computed
    // once (an SQL function would be inlined with its 16 uses of it), at a few microseconds a delivery.
    const alphabet = `'0123456789ABCDEFGHJKMNPQRSTVWXYZ'`;
    const chars = [0, 1, 2, 3]
      .flatMap((g) => [15, 10, 5, 0].map((shift) => `substr(${alphabet}, ((('x' || substr(h, ${5 * g + 1}, 5))::bit(20)::int >> ${shift}) & 31) + 1, 1)`))
      .join('\n      || ');
    this.addSql(`create function webhook_delivery_id(p_event varchar, p_webhook varchar) returns varchar language plpgsql immutable parallel safe as $$
declare
  h text := encode(sha256(convert_to(p_event || ' ' || p_webhook, 'UTF8')), 'hex');
begin
  return 'whd_' || left(split_part(p_event, '_', 2), 10)
      || ${chars};
end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop function if exists webhook_delivery_id(varchar, varchar);`);
  }

}
