// 0028: the summary's rollups (0002 interaction_daily_usage, 0006 interaction_user_daily_usage) are counted by the code
// that inserts interactions, once per batch, like the insights' rollups (platform/db/insights-rollups.ts), instead of by
// insert triggers: on SQLite a row trigger ran two upserts per recorded call (32 per group-committed batch of 16, where
// the batch's own two aggregated upserts now do); on PostgreSQL the statement trigger of 0025 becomes two more parts of
// the batch's one statement, so both databases count every rollup through the same code. Every writer of
// `interactions` goes through it (the group commit; the PostgreSQL copy copies the rollups with triggers off). The
// delete triggers (retention) and the immutability trigger are unchanged.
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, dropRowTrigger, kindOf } from '../dialect.ts'

const DAILY = 'interactions_rollup_insert'
const USER_DAILY = 'interactions_user_rollup_insert'

export async function up(db: Kysely<unknown>): Promise<void> {
  // SQLite has both row triggers; on PostgreSQL 0025 left one statement trigger (and its function) under DAILY's name.
  for (const name of [DAILY, USER_DAILY]) await dropRowTrigger(db, name, 'interactions')
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) === 'sqlite') {
    // The row triggers of 0002 and 0006, as they made them.
    await sql`
    create trigger interactions_rollup_insert after insert on interactions begin
      insert into interaction_daily_usage (day, api_title, n) values (substr(new.created_at, 1, 10), new.api_title, 1)
        on conflict (day, api_title) do update set n = n + 1;
    end`.execute(db)
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
    return
  }
  // The statement trigger of 0025, as it made it.
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
