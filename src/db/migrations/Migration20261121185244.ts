import { Migration } from '@mikro-orm/migrations';

export class Migration20261121185244 extends Migration {

  override name = 'Migration20261121185244';

  override up(): void | Promise<void> {
    this.addSql(`create table "oauth_signing_key" ("kid" varchar(64) not null, "public_jwk" jsonb not null, "private_jwk" jsonb not null, "active" boolean not null default true, "created_at" timestamptz(3) not null, "retired_at" timestamptz(3) null, primary key ("kid"));`);
    this.addSql(`create index "oauth_signing_key_active_idx" on "oauth_signing_key" ("active");`);

    this.addSql(`create table "oauth_token" ("id" varchar(40) not null, "family" varchar(40) not null, "credential_id" varchar(40) not null, "business_id" varchar(40) not null, "user_id" varchar(40) not null, "scopes" jsonb not null, "refresh_hash" varchar(64) null, "access_expires_at" timestamptz(3) not null, "refresh_expires_at" timestamptz(3) null, "refresh_used_at" timestamptz(3) null, "revoked_at" timestamptz(3) null, "authorization_code" varchar(64) null, "created_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create index "oauth_token_user_idx" on "oauth_token" ("user_id");`);
    this.addSql(`alter table "oauth_token" add constraint "oauth_token_refresh_hash_unique" unique ("refresh_hash");`);
    this.addSql(`create index "oauth_token_credential_idx" on "oauth_token" ("credential_id");`);
    this.addSql(`create index "oauth_token_family_idx" on "oauth_token" ("family");`);

    this.addSql(`create table "oauth_authorization_code" ("code_hash" varchar(64) not null, "credential_id" varchar(40) not null, "business_id" varchar(40) not null, "user_id" varchar(40) not null, "redirect_uri" text not null, "scopes" jsonb not null, "code_challenge" varchar(128) null, "expires_at" timestamptz(3) not null, "used_at" timestamptz(3) null, "family" varchar(40) null, "created_at" timestamptz(3) not null, primary key ("code_hash"));`);

    this.addSql(`alter table "oauth_token" add constraint "oauth_token_credential_id_foreign" foreign key ("credential_id") references "credential" ("id") on delete cascade;`);
    this.addSql(`alter table "oauth_token" add constraint "oauth_token_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "oauth_token" add constraint "oauth_token_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);

    this.addSql(`alter table "oauth_authorization_code" add constraint "oauth_authorization_code_credential_id_foreign" foreign key ("credential_id") references "credential" ("id") on delete cascade;`);
    this.addSql(`alter table "oauth_authorization_code" add constraint "oauth_authorization_code_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "oauth_authorization_code" add constraint "oauth_authorization_code_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "oauth_signing_key" cascade;`);
    this.addSql(`drop table if exists "oauth_token" cascade;`);
    this.addSql(`drop table if exists "oauth_authorization_code" cascade;`);
  }

}
