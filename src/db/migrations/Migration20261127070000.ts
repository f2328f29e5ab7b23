import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 37, sign-up, password reset and invitations: an owner's pending invitations; account_mail, each account
 * e-mail and the hash of the single-use link it carries (also the worker's job); a user's verified address and the
 * time before which their sign-in sessions are void.
 */
export class Migration20261127070000 extends Migration {

  override name = 'Migration20261127070000';

  override up(): void | Promise<void> {
    this.addSql(`create table "invitation" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "email" varchar(320) not null, "role" text not null, "invited_by_id" varchar(40) null, "expires_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create index "invitation_business_idx" on "invitation" ("business_id");`);
    this.addSql(`alter table "invitation" add constraint "invitation_business_email_unique" unique ("business_id", "email");`);

    this.addSql(`create table "account_mail" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "kind" varchar(12) not null, "email" varchar(320) not null, "user_id" varchar(40) null, "invitation_id" varchar(40) null, "token_hash" varchar(64) null, "continue_to" text null, "expires_at" timestamptz(3) null, "used_at" timestamptz(3) null, "status" varchar(10) not null default 'pending', "error" text null, "attempts" int not null default 0, "due_at" timestamptz(3) null, "locked_until" timestamptz(3) null, "locked_by" varchar(60) null, "sent_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`create index "account_mail_user_idx" on "account_mail" ("user_id");`);
    this.addSql(`create index "account_mail_invitation_idx" on "account_mail" ("invitation_id");`);
    this.addSql(`alter table "account_mail" add constraint "account_mail_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "account_mail_due_idx" on "account_mail" ("due_at") where "due_at" is not null;`);

    this.addSql(`alter table "app_user" add "email_verified_at" timestamptz(3) null, add "sessions_valid_after" timestamptz(3) null;`);
    // Users made before sign-up existed were made by the operator: they count as verified.
    this.addSql(`update "app_user" set "email_verified_at" = "created_at";`);

    this.addSql(`alter table "invitation" add constraint "invitation_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "invitation" add constraint "invitation_invited_by_id_foreign" foreign key ("invited_by_id") references "app_user" ("id") on delete set null;`);
    this.addSql(`alter table "invitation" add constraint "invitation_role_check" check ("role" in ('owner', 'manager', 'staff'));`);

    this.addSql(`alter table "account_mail" add constraint "account_mail_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);
    this.addSql(`alter table "account_mail" add constraint "account_mail_invitation_id_foreign" foreign key ("invitation_id") references "invitation" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "account_mail" cascade;`);
    this.addSql(`drop table if exists "invitation" cascade;`);
    this.addSql(`alter table "app_user" drop column "email_verified_at", drop column "sessions_valid_after";`);
  }

}
