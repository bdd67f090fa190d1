// 0013: the indexes that page the interaction history (GET /api/interactions, issue 26) newest first by (created_at, id).
//
// Each page walks one index in (created_at, id) order: a user's (members, and an admin's user_id filter), a
// conversation's, or the organisation's by time. The filters that do not pick the index (kind, is_error, api_title,
// tool, client source) are stored in the user and time indexes too, so the rows a page passes over are checked in the
// index without reading the table; a page examines a bounded number of index entries (modules/interactions/history.ts).
// Measured against indexes per filter (title, tool, errors): those cost ~45 µs of CPU more per recorded row, these ~8.
import { sql, type Kysely } from 'kysely'

/** The filters a page checks in the index, after the columns that order it. */
const FILTER_COLUMNS = ['kind', 'is_error', 'api_title', 'action', 'client_source'] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  // Replaces 0002's (user_id, created_at, api_title), under the same name: its readers (retention's batches, a member's
  // insights for one agent) still find user_id, created_at and api_title in it, and the history needs id for its order.
  await db.schema.dropIndex('interactions_user_time').execute()
  await db.schema
    .createIndex('interactions_user_time')
    .on('interactions')
    .columns(['user_id', 'created_at', 'id', ...FILTER_COLUMNS])
    .execute()
  await db.schema
    .createIndex('interactions_time')
    .on('interactions')
    .columns(['created_at', 'id', ...FILTER_COLUMNS])
    .execute()
  // Only calls recorded with a conversation (the copilot's) are in it; the others cost it nothing.
  await db.schema
    .createIndex('interactions_conversation')
    .on('interactions')
    .columns(['conversation_id', 'created_at', 'id'])
    .where(sql.ref('conversation_id'), 'is not', null)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('interactions_conversation').execute()
  await db.schema.dropIndex('interactions_time').execute()
  await db.schema.dropIndex('interactions_user_time').execute()
  await db.schema.createIndex('interactions_user_time').on('interactions').columns(['user_id', 'created_at', 'api_title']).execute()
}
