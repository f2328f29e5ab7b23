import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 36, the business's face: display name, brand colour, logo (its bytes in business_logo), review link and
 * Reply-To on the business; a write to the business notifies `survey_pages`, since the guest pages show the brand.
 */
export class Migration20261127083600 extends Migration {

  override name = 'Migration20261127083600';

  override up(): void | Promise<void> {
    this.addSql(`create table "business_logo" ("business_id" varchar(40) not null, "file" varchar(80) not null, "content_type" varchar(20) not null, "data" bytea not null, "width" int not null, "height" int not null, "updated_at" timestamptz(3) not null, primary key ("business_id"));`);
    this.addSql(`alter table "business_logo" add constraint "business_logo_business_id_foreign" foreign key ("business_id") references "business" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "business" add "display_name" varchar(80) null, add "brand_color" varchar(7) null, add "logo_file" varchar(80) null, add "review_url" varchar(2000) null, add "reply_to" varchar(254) null;`);
    this.addSql(`create or replace function "business_survey_pages_changed_fn"() returns trigger as $$ begin perform pg_notify('survey_pages', ''); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "survey_pages_changed" AFTER INSERT OR UPDATE OR DELETE on "business" for each STATEMENT execute function "business_survey_pages_changed_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "survey_pages_changed" on "business";`);
    this.addSql(`drop function if exists "business_survey_pages_changed_fn"();`);
    this.addSql(`alter table "business" drop column "display_name", drop column "brand_color", drop column "logo_file", drop column "review_url", drop column "reply_to";`);
    this.addSql(`drop table if exists "business_logo" cascade;`);
  }

}
