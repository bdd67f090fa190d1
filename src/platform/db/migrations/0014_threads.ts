// 0014: threads become one resource for tasks and chat (issue 27): a thread gets an optional agent name and title;
// a message keeps its role (system, user, assistant or tool), tool calls, tool result, model and token usage. The
// messages table is rebuilt (its role check cannot be widened in place) with every existing row copied; task threads
// get their task's name as title.
import { sql, type Kysely } from 'kysely'
import { inTransaction } from '../transaction.ts'

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the tables as they were then, not as schema.ts types them now.
export async function up(db: Kysely<any>): Promise<void> {
  // The migrator runs SQLite migrations without a transaction: this one copies and drops a table, so it takes its own
  // (on PostgreSQL the migrator's transaction is already open).
  await inTransaction(db, async (trx) => {
    await trx.schema.alterTable('threads').addColumn('agent_name', 'text').execute()
    await trx.schema.alterTable('threads').addColumn('title', 'text').execute()
    await trx
      .updateTable('threads')
      .set({ title: sql`(select tasks.name from tasks where tasks.id = threads.task_id)` })
      .where('task_id', 'is not', null)
      .execute()
    // GET /api/threads: the owner's, newest activity first, optionally one agent's.
    await trx.schema.createIndex('threads_owner_updated').on('threads').columns(['owner_id', 'updated_at', 'id']).execute()
    await trx.schema.createIndex('threads_owner_agent').on('threads').columns(['owner_id', 'agent_name', 'updated_at', 'id']).execute()

    await trx.schema
      .createTable('thread_messages_0014')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('thread_id', 'text', (c) => c.notNull().references('threads.id').onDelete('cascade'))
      .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('system', 'user', 'assistant', 'tool')`))
      .addColumn('content', 'text', (c) => c.notNull())
      // JSON: [{id, name, arguments, invalid_arguments?}] on assistant messages that called tools.
      .addColumn('tool_calls', 'text')
      // JSON: {tool_call_id, name, is_error} on tool messages.
      .addColumn('tool_result', 'text')
      .addColumn('model_provider', 'text')
      .addColumn('model_name', 'text')
      .addColumn('input_tokens', 'integer')
      .addColumn('output_tokens', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()
    await trx
      .insertInto('thread_messages_0014')
      .columns(['id', 'thread_id', 'role', 'content', 'created_at'])
      .expression(trx.selectFrom('thread_messages').select(['id', 'thread_id', 'role', 'content', 'created_at']))
      .execute()
    await trx.schema.dropTable('thread_messages').execute()
    await trx.schema.alterTable('thread_messages_0014').renameTo('thread_messages').execute()
    // Messages are read per thread in order; UUIDv7 ids sort by creation.
    await trx.schema.createIndex('thread_messages_thread').on('thread_messages').columns(['thread_id', 'id']).execute()
  })
}

// biome-ignore lint/suspicious/noExplicitAny: as above.
export async function down(db: Kysely<any>): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.deleteFrom('thread_messages').where('role', 'not in', ['user', 'assistant']).execute()
    for (const column of ['tool_calls', 'tool_result', 'model_provider', 'model_name', 'input_tokens', 'output_tokens'])
      await trx.schema.alterTable('thread_messages').dropColumn(column).execute()
    await trx.schema.dropIndex('threads_owner_agent').execute()
    await trx.schema.dropIndex('threads_owner_updated').execute()
    await trx.schema.alterTable('threads').dropColumn('title').execute()
    await trx.schema.alterTable('threads').dropColumn('agent_name').execute()
  })
}
