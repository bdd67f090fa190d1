// 0025: on PostgreSQL, the summary's rollups (0002 interaction_daily_usage, 0006 interaction_user_daily_usage) are
// counted once per INSERT statement from its transition table, aggregated and in key order, instead of by a row
// trigger per inserted row. A group-committed batch is one statement (platform/db/insights-rollups.ts): its rows cost
// one upsert per distinct key instead of a PL/pgSQL call and an upsert each, and every writer locks the hot rows in
// the same order. SQLite keeps its row triggers: there a trigger is a call inside the same process, and the batch is
// inserted row by row anyway. The delete triggers are unchanged on both.
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, dropRowTrigger, kindOf } from '../dialect.ts'

const DAILY = 'interactions_rollup_insert'
const USER_DAILY = 'interactions_user_rollup_insert'

export async function up(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) === 'sqlite') return
  await dropRowTrigger(db, DAILY, 'interactions')
  await dropRowTrigger(db, USER_DAILY, 'interactions')
  await sql
    .raw(`create function ${DAILY}() returns trigger language plpgsql as $trigger$ begin
  insert into interaction_daily_usage (day, api_title, n)
    select substr(created_at, 1, 10), api_title, count(*) from inserted_rows group by 1, 2 order by 1, 2
    on conflict (day, api_title) do update set n = interaction_daily_usage.n + excluded.n;
  insert into interaction_user_daily_usage (user_id, day, api_title, kind, n)
    select user_id, substr(created_at, 1, 10), api_title, kind, count(*) from inserted_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (user_id, day, api_title, kind) do update set n = interaction_user_daily_usage.n + excluded.n;
  return null;
end $trigger$`)
    .execute(db)
  await sql
    .raw(`create trigger ${DAILY} after insert on interactions referencing new table as inserted_rows for each statement execute function ${DAILY}()`)
    .execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) === 'sqlite') return
  await dropRowTrigger(db, DAILY, 'interactions')
  // The row triggers of 0002 and 0006, as they made them.
  await createRowTrigger(db, {
    name: DAILY,
    table: 'interactions',
    timing: 'after',
    event: 'insert',
    statements: [
      `insert into interaction_daily_usage (day, api_title, n) values (substr(new.created_at, 1, 10), new.api_title, 1)
        on conflict (day, api_title) do update set n = interaction_daily_usage.n + 1`,
    ],
  })
  await createRowTrigger(db, {
    name: USER_DAILY,
    table: 'interactions',
    timing: 'after',
    event: 'insert',
    statements: [
      `insert into interaction_user_daily_usage (user_id, day, api_title, kind, n)
        values (new.user_id, substr(new.created_at, 1, 10), new.api_title, new.kind, 1)
        on conflict (user_id, day, api_title, kind) do update set n = interaction_user_daily_usage.n + 1`,
    ],
  })
}
