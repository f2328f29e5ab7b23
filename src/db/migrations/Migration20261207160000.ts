import { randomBytes } from 'node:crypto';
import { Migration } from '@mikro-orm/migrations';
import { newId } from '../../shared/id.js';

type StoredRecipient = { channel?: string; to?: string; role?: string; member?: string };

/**
 * Issue 48: nobody is messaged who did not agree. Outside alert recipients (an address or number a rule names) get
 * one confirmation and nothing else until they agree; `alert_recipient` holds each one's answer per business and is
 * the outbox of its confirmation; a case alert to one of them names it (`recipient_id`), so a refusal stops even an
 * alert already queued.
 *
 * Existing rules: an e-mail address that is the account of a member of the rule's business becomes that member
 * (`{"member": "mem_…"}`: they joined the business, and stop hearing when they leave it); every other address or
 * number becomes a recipient that has not agreed: nothing is sent to it any more until it does, and its one
 * confirmation is due at once, so the workers send it when they next run.
 */
export class Migration20261207160000 extends Migration {
  override name = 'Migration20261207160000';

  override async up(): Promise<void> {
    await this.execute(`create table "alert_recipient" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "error" text null, "attempts" int not null default 0, "due_at" timestamptz(3) null, "locked_until" timestamptz(3) null, "locked_by" varchar(60) null, "sent_at" timestamptz(3) null, "business_id" varchar(40) not null, "channel" varchar(10) not null, "address" varchar(320) not null, "status" varchar(10) not null default 'pending', "token" varchar(64) not null, "confirmed_at" timestamptz(3) null, "declined_at" timestamptz(3) null, primary key ("id"));`);
    await this.execute(`alter table "alert_recipient" add constraint "alert_recipient_token_uq" unique ("token");`);
    await this.execute(`create index "alert_recipient_due_idx" on "alert_recipient" ("due_at") where "due_at" is not null;`);
    await this.execute(`alter table "alert_recipient" add constraint "alert_recipient_address_uq" unique ("business_id", "channel", "address");`);
    await this.execute(`alter table "alert_recipient" add constraint "alert_recipient_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    await this.execute(`alter table "case_alert" add "recipient_id" varchar(40) null;`);
    await this.execute(`alter table "case_alert" add constraint "case_alert_recipient_id_foreign" foreign key ("recipient_id") references "alert_recipient" ("id") on delete cascade;`);

    const members = new Map<string, string>();
    for (const m of await this.execute(`select m.id, m.business_id, lower(u.email) as email from membership m join app_user u on u.id = m.user_id`)) {
      members.set(`${m.business_id} ${m.email}`, m.id as string);
    }
    const outside = new Map<string, { business: string; channel: string; address: string }>();
    for (const rule of await this.execute(`select id, business_id, notify from alert_rule`)) {
      const notify = rule.notify as StoredRecipient[];
      const next = notify.map((r): StoredRecipient => {
        if (!r.channel || !r.to) return r;
        const member = r.channel === 'email' ? members.get(`${rule.business_id} ${r.to.toLowerCase()}`) : undefined;
        if (member) return { member };
        outside.set(`${rule.business_id} ${r.channel} ${r.to}`, { business: rule.business_id as string, channel: r.channel, address: r.to });
        return r;
      });
      if (next.some((r, i) => r !== notify[i])) await this.execute(`update alert_rule set notify = ?::jsonb where id = ?`, [JSON.stringify(next), rule.id]);
    }
    for (const r of outside.values()) {
      await this.execute(
        `insert into alert_recipient (id, created_at, updated_at, attempts, due_at, business_id, channel, address, status, token) values (?, now(), now(), 0, now(), ?, ?, ?, 'pending', ?)`,
        [newId('alertRecipient'), r.business, r.channel, r.address, randomBytes(16).toString('base64url')],
      );
    }
  }

  override async down(): Promise<void> {
    await this.execute(`alter table "case_alert" drop column "recipient_id";`);
    await this.execute(`drop table if exists "alert_recipient" cascade;`);
  }
}
