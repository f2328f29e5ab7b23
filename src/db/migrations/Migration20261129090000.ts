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
    this.addSql(`create function webhook_delivery_id(p_event varchar, p_webhook varchar) returns varchar language sql immutable parallel safe as $$
  select 'whd_' || left(split_part(p_event, '_', 2), 10)
         || string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substring(h.bits from 5 * i + 1 for 5)::int + 1, 1), '' order by i)
    from (select ('x' || left(encode(sha256(convert_to(p_event || ' ' || p_webhook, 'UTF8')), 'hex'), 20))::bit(80) as bits) h,
         generate_series(0, 15) i
$$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop function if exists webhook_delivery_id(varchar, varchar);`);
  }

}
