// 0022 (issue 30): a JSON `metadata` column on thread messages, for what a chat turn keeps beside a message's text: the
// mode and preset of a user message, the comparison model's answer and the follow-up suggestions of an assistant
// message. Nullable; existing rows have none.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('thread_messages').addColumn('metadata', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('thread_messages').dropColumn('metadata').execute()
}
