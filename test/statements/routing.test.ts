import { routing } from './routing.js';

// The rule of the statement check (statement-check.ts), on statements of the shapes the service sends.
const tenant = new Map([
  ['business', 'id'],
  ...['survey', 'survey_step', 'submission', 'customer_order', 'order_item'].map((t) => [t, 'business_id'] as [string, string]),
]);
const unpinned = (sql: string) => routing(sql, tenant).unpinned;

describe('a statement is routable to one shard', () => {
  test('when each tenant table it names is filtered by business_id, directly or through a join on it', () => {
    expect(unpinned(`select * from survey where business_id = $1 and id = $2`)).toEqual([]);
    expect(unpinned(`select * from survey where business_id in ($1) and id = 'x'`)).toEqual([]);
    expect(unpinned(`select * from survey s join survey_step st on st.survey_id = s.id and st.business_id = s.business_id where s.business_id = $1`)).toEqual(
      [],
    );
    expect(unpinned(`select * from survey s join survey_step st using (business_id) where business_id = $1`)).toEqual([]);
    expect(unpinned(`select * from (select * from survey where business_id = $1) x join survey_step st on st.business_id = x.business_id`)).toEqual([]);
    expect(unpinned(`select b.name from business b join survey s on s.business_id = b.id where b.id = $1`)).toEqual([]);
    expect(
      unpinned(
        `select * from customer_order o where o.business_id = $1 and exists (select 1 from submission s where s.order_id = o.id and s.business_id = o.business_id)`,
      ),
    ).toEqual([]);
  });

  test('when what it writes carries its business: INSERT values, INSERT … SELECT, CTEs, UPDATE … FROM', () => {
    expect(
      unpinned(`insert into survey (id, business_id, name) values ($1, $2, 'x'), ($3, $4, 'y') on conflict (id) do update set name = excluded.name`),
    ).toEqual([]);
    expect(
      unpinned(
        `with o as (insert into customer_order (id, business_id) values ($1, $2) returning *) insert into order_item (order_id, business_id) select o.id, o.business_id from o`,
      ),
    ).toEqual([]);
    expect(
      unpinned(`update survey_step st set position = 1 from survey s where s.id = st.survey_id and s.business_id = st.business_id and s.business_id = $1`),
    ).toEqual([]);
    expect(unpinned(`delete from survey where business_id = $1 and id = any($2)`)).toEqual([]);
  });

  test('and names the tenant tables a statement leaves open to every business', () => {
    expect(unpinned(`select * from survey where id = $1`)).toEqual(['survey']);
    expect(unpinned(`select * from survey s join survey_step st on st.survey_id = s.id where s.business_id = $1`)).toEqual(['survey_step st']);
    expect(unpinned(`select * from customer_order o where o.business_id = $1 and exists (select 1 from submission s where s.order_id = o.id)`)).toEqual([
      'submission s',
    ]);
    expect(unpinned(`select * from customer_order o where o.business_id = $1 or o.id = $2`)).toEqual(['customer_order o']);
    expect(unpinned(`select * from survey where business_id = any($1)`)).toEqual(['survey']);
    expect(unpinned(`select * from survey where business_id in ($1, $2)`)).toEqual(['survey']);
    expect(unpinned(`update survey_step st set position = 1 from survey s where s.id = st.survey_id and s.business_id = $1`)).toEqual(['survey_step st']);
    expect(
      unpinned(
        `with o as (insert into customer_order (id, business_id) select r.id, r.business_id from jsonb_populate_record(null::customer_order, $1) r returning *) insert into order_item (order_id, business_id) select o.id, o.business_id from o`,
      ),
    ).toEqual(['customer_order', 'order_item']);
  });

  test('statements on other tables, and DDL, are not tenant statements', () => {
    expect(routing(`select * from app_user where id = $1`, tenant)).toEqual({ kind: 'dml', tables: [], unpinned: [] });
    expect(routing(`create table x (a int)`, tenant).kind).toBe('other');
    expect(routing(`begin`, tenant).kind).toBe('other');
  });
});
