import { Migration } from '@mikro-orm/migrations';

/**
 * analytics_apply (the rollups' writer, run by the submission triggers three times per answer) plans its statements
 * once per connection instead of on every call: with the default plan_cache_mode, PostgreSQL made a custom plan of the
 * rollup update for each call (it inlines analytics_contributions), which cost several times the update itself.
 */
const EACH_APPLY = (setting: string) => `do $$
declare f regprocedure;
begin
  for f in select oid::regprocedure from pg_proc where proname = 'analytics_apply' loop
    execute format('alter function %s ${setting}', f);
  end loop;
end $$;`;

export class Migration20261127230000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(EACH_APPLY('set plan_cache_mode = force_generic_plan'));
  }

  override async down(): Promise<void> {
    this.addSql(EACH_APPLY('reset plan_cache_mode'));
  }
}
