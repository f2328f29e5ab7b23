import { Migration } from '@mikro-orm/migrations';

export class Migration20261121184919 extends Migration {

  override name = 'Migration20261121184919';

  override up(): void | Promise<void> {
    this.addSql(`create table "business" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "name" varchar(200) not null, "country" varchar(2) null, primary key ("id"));`);

    this.addSql(`create table "custom_integration" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "secret_hash" varchar(64) not null, "connected_at" timestamptz(3) not null, "rotated_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`alter table "custom_integration" add constraint "custom_integration_business_unique" unique ("business_id");`);

    this.addSql(`create table "event" ("id" varchar(40) not null, "business_id" varchar(40) not null, "type" varchar(100) not null, "data" jsonb not null, "created_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create index "event_business_type_created_idx" on "event" ("business_id", "type", "created_at");`);
    this.addSql(`create index "event_business_created_idx" on "event" ("business_id", "created_at", "id");`);

    this.addSql(`create table "location" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "name" varchar(200) not null, "metadata" jsonb not null, primary key ("id"));`);
    this.addSql(`create index "location_metadata_gin" on "location" using gin ("metadata" jsonb_path_ops);`);
    this.addSql(`create index "location_business_created_idx" on "location" ("business_id", "created_at", "id");`);

    this.addSql(`create table "menu_item" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "name" varchar(300) not null, "external_item_id" varchar(200) null, primary key ("id"));`);
    this.addSql(`create unique index "menu_item_business_name_unique" on "menu_item" ("business_id", lower("name"));`);

    this.addSql(`create table "metric" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "name" varchar(200) not null, "description" text null, "scale_min" smallint not null default 1, "scale_max" smallint not null default 5, primary key ("id"));`);
    this.addSql(`create index "metric_business_created_idx" on "metric" ("business_id", "created_at", "id");`);

    this.addSql(`create table "customer_order" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "external_order_id" varchar(200) not null, "external_location_id" varchar(200) null, "external_brand_id" varchar(200) null, "source" text not null, "channel" text null, "status" text not null default 'PENDING', "currency" varchar(3) not null, "subtotal" numeric(19,4) null, "delivery_charge" numeric(19,4) null, "total" numeric(19,4) not null, "customer_name" varchar(300) null, "customer_email" varchar(320) null, "customer_phone" varchar(20) null, "metadata" jsonb not null, primary key ("id"));`);
    this.addSql(`create index "customer_order_business_external_order_idx" on "customer_order" ("business_id", "external_order_id");`);
    this.addSql(`create index "customer_order_business_created_idx" on "customer_order" ("business_id", "created_at", "id");`);
    this.addSql(`create unique index "customer_order_external_unique" on "customer_order" ("business_id", coalesce("external_location_id", ''), "external_order_id");`);
    this.addSql(`alter table "customer_order" add constraint "customer_order_source_check" check ("source" in ('api', 'custom'));`);
    this.addSql(`alter table "customer_order" add constraint "customer_order_channel_check" check ("channel" in ('WEBSITE', 'ANDROID', 'IOS', 'CALL-IN', 'QR', 'FOODPANDA', 'GOLOOTLO', 'OTHER'));`);
    this.addSql(`alter table "customer_order" add constraint "customer_order_status_check" check ("status" in ('PENDING', 'ACCEPTED'));`);

    this.addSql(`create table "order_item" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "order_id" varchar(40) not null, "position" int not null, "menu_item_id" varchar(40) null, "external_item_id" varchar(200) null, "name" varchar(300) null, "quantity" int null, "unit_price" numeric(19,4) null, "total_price" numeric(19,4) null, "sales_tax_percent" numeric(7,4) null, "sales_tax_amount" numeric(19,4) null, "item_comment" text null, primary key ("id"));`);
    this.addSql(`create index "order_item_menu_item_idx" on "order_item" ("menu_item_id");`);
    this.addSql(`create index "order_item_order_position_idx" on "order_item" ("order_id", "position");`);

    this.addSql(`create table "survey" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "name" varchar(200) not null, "description" text null, "status" text not null default 'draft', primary key ("id"));`);
    this.addSql(`create index "survey_business_created_idx" on "survey" ("business_id", "created_at", "id");`);
    this.addSql(`alter table "survey" add constraint "survey_status_check" check ("status" in ('draft', 'active', 'archived'));`);

    this.addSql(`create table "submission" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "survey_id" varchar(40) null, "answers" jsonb not null, "guest_id" varchar(200) null, "session_id" varchar(200) null, "metadata" jsonb not null, "order_id" varchar(40) null, "location_id" varchar(40) null, primary key ("id"));`);
    this.addSql(`create index "submission_location_idx" on "submission" ("location_id");`);
    this.addSql(`create index "submission_order_idx" on "submission" ("order_id");`);
    this.addSql(`create index "submission_business_created_idx" on "submission" ("business_id", "created_at", "id");`);
    this.addSql(`create index "submission_survey_created_idx" on "submission" ("survey_id", "created_at", "id");`);

    this.addSql(`create table "survey_step" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "survey_id" varchar(40) not null, "position" int not null, "type" text not null, "required" boolean not null default false, "content" jsonb not null, "input_type" varchar(50) null, "validation" jsonb null, "logic" jsonb null, "metric_ids" jsonb not null, primary key ("id"));`);
    this.addSql(`create index "survey_step_business_idx" on "survey_step" ("business_id");`);
    this.addSql(`create index "survey_step_survey_position_idx" on "survey_step" ("survey_id", "position");`);
    this.addSql(`alter table "survey_step" add constraint "survey_step_type_check" check ("type" in ('metrics', 'text', 'choice', 'nps', 'info', 'location', 'contact'));`);

    this.addSql(`create table "app_user" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "email" varchar(320) not null, "name" varchar(200) null, "password_hash" varchar(255) not null, primary key ("id"));`);
    this.addSql(`alter table "app_user" add constraint "app_user_email_unique" unique ("email");`);

    this.addSql(`create table "membership" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "user_id" varchar(40) not null, "business_id" varchar(40) not null, "role" text not null, primary key ("id"));`);
    this.addSql(`create index "membership_business_idx" on "membership" ("business_id");`);
    this.addSql(`alter table "membership" add constraint "membership_user_business_unique" unique ("user_id", "business_id");`);
    this.addSql(`alter table "membership" add constraint "membership_role_check" check ("role" in ('owner', 'admin', 'staff'));`);

    this.addSql(`create table "credential" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "name" varchar(200) not null, "client_id" varchar(64) not null, "secret_hash" varchar(64) not null, "valid_redirect_uris" jsonb not null, "created_by_id" varchar(40) not null, primary key ("id"));`);
    this.addSql(`alter table "credential" add constraint "credential_client_id_unique" unique ("client_id");`);
    this.addSql(`create index "credential_business_created_idx" on "credential" ("business_id", "created_at", "id");`);

    this.addSql(`create table "webhook" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "url" varchar(2048) not null, "events" jsonb not null, "description" text null, "secret" varchar(100) not null, "enabled" boolean not null default true, primary key ("id"));`);
    this.addSql(`create index "webhook_business_created_idx" on "webhook" ("business_id", "created_at", "id");`);

    this.addSql(`alter table "custom_integration" add constraint "custom_integration_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "event" add constraint "event_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "location" add constraint "location_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "menu_item" add constraint "menu_item_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "metric" add constraint "metric_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "customer_order" add constraint "customer_order_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "order_item" add constraint "order_item_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "order_item" add constraint "order_item_order_id_foreign" foreign key ("order_id") references "customer_order" ("id") on delete cascade;`);
    this.addSql(`alter table "order_item" add constraint "order_item_menu_item_id_foreign" foreign key ("menu_item_id") references "menu_item" ("id") on delete set null;`);

    this.addSql(`alter table "survey" add constraint "survey_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "submission" add constraint "submission_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "submission" add constraint "submission_survey_id_foreign" foreign key ("survey_id") references "survey" ("id") on delete set null;`);
    this.addSql(`alter table "submission" add constraint "submission_order_id_foreign" foreign key ("order_id") references "customer_order" ("id") on delete set null;`);
    this.addSql(`alter table "submission" add constraint "submission_location_id_foreign" foreign key ("location_id") references "location" ("id") on delete set null;`);

    this.addSql(`alter table "survey_step" add constraint "survey_step_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "survey_step" add constraint "survey_step_survey_id_foreign" foreign key ("survey_id") references "survey" ("id") on delete cascade;`);

    this.addSql(`alter table "membership" add constraint "membership_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);
    this.addSql(`alter table "membership" add constraint "membership_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "credential" add constraint "credential_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "credential" add constraint "credential_created_by_id_foreign" foreign key ("created_by_id") references "app_user" ("id") on delete restrict;`);

    this.addSql(`alter table "webhook" add constraint "webhook_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
  }

}
