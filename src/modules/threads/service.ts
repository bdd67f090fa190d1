// Threads: the conversations of task runs and chat, one resource. Owners list, read and delete theirs (admins may read
// any); modules (tasks, chat) create threads and append messages through this service, inside their own transaction
// when they pass one.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { type Clock, isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { ThreadMessagesTable } from '../../platform/db/tables/threads.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { invalidInput, notFound } from '../../platform/errors.ts'
import { EventLoopTurns } from '../../platform/fair-share.ts'
import { resolvePage, type Page } from '../../platform/http/paging.ts'
import { newId } from '../../platform/ids.ts'
import type { ChatMessage } from '../../llm/provider.ts'
import {
  type NewThreadMessage,
  type ThreadMessageRecord,
  type ThreadRecord,
  type ThreadSummaryRecord,
  toChatMessage,
  toMessageRecord,
  toMessageRow,
  toSummary,
} from './records.ts'
import { THREAD_PAGING } from './schema.ts'

export const THREAD_NOT_FOUND = 'Thread not found'

const ROLES = new Set(['system', 'user', 'assistant', 'tool'])

/**
 * Messages read per query. A message is at most ~100,000 characters (a chat message; a tool result is cut at 50,000),
 * so a page is about a megabyte: reading it from SQLite, which answers synchronously, and decoding it stay within a few
 * milliseconds, and the event loop gets a turn between pages once the reading has taken longer than that.
 */
const READ_PAGE = 8
const READ_TURN_MS = 4
/**
 * How much of a thread a model reads at most, in characters (~100,000 tokens): the latest messages that fit, the
 * newest always. Beyond it a real model would refuse the request, and reading and sending it would hold the server.
 */
export const HISTORY_MAX_CHARS = 400_000

const messageChars = (row: ThreadMessagesTable) => row.content.length + (row.tool_calls?.length ?? 0)

export interface ThreadsServiceOptions {
  db: Kysely<Database>
  clock: Clock
}

export interface NewThread {
  /** The user the thread belongs to. */
  owner_id: string
  agent_name?: string | null
  task_id?: string | null
  title?: string | null
}

export interface ThreadListQuery extends Page {
  agent_name?: string
}

export class ThreadsService {
  readonly #o: ThreadsServiceOptions

  constructor(options: ThreadsServiceOptions) {
    this.#o = options
  }

  /** The caller's own threads, newest activity first, optionally one agent's. */
  async list(principal: Principal, query: ThreadListQuery = {}): Promise<ThreadSummaryRecord[]> {
    const { limit, offset } = resolvePage(query, THREAD_PAGING)
    let select = this.#o.db.selectFrom('threads').selectAll().where('owner_id', '=', principal.userId)
    if (query.agent_name !== undefined) select = select.where('agent_name', '=', query.agent_name)
    const rows = await select.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()
    return rows.map(toSummary)
  }

  /** Its owner reads a thread, and so may an admin; for anyone else it does not exist. */
  async get(principal: Principal, id: string): Promise<ThreadRecord> {
    const { db } = this.#o
    const row = await db.selectFrom('threads').selectAll().where('id', '=', id).executeTakeFirst()
    if (!row || (row.owner_id !== principal.userId && principal.role !== 'admin')) throw notFound(THREAD_NOT_FOUND)
    const messages: ThreadMessageRecord[] = []
    const turns = new EventLoopTurns(READ_TURN_MS)
    for (let after: string | null = null; ; ) {
      let page = db.selectFrom('thread_messages').selectAll().where('thread_id', '=', id)
      if (after !== null) page = page.where('id', '>', after)
      const rows = await page.orderBy('id').limit(READ_PAGE).execute()
      for (const message of rows) messages.push(toMessageRecord(message))
      if (rows.length < READ_PAGE) break
      after = rows.at(-1)!.id
      await turns.maybe()
    }
    return { ...toSummary(row), messages }
  }

  /**
   * Only the owner deletes (an admin's reading right is not a right to destroy someone's conversation); the messages go
   * with it. A task that appends to a deleted thread starts a new one at its next run.
   */
  async delete(principal: Principal, id: string): Promise<void> {
    const result = await this.#o.db.deleteFrom('threads').where('id', '=', id).where('owner_id', '=', principal.userId).executeTakeFirst()
    if (result.numDeletedRows === 0n) throw notFound(THREAD_NOT_FOUND)
  }

  /** A new, empty thread. `db` is the caller's transaction, when the thread must appear with the caller's own rows. */
  async create(input: NewThread, db: Kysely<Database> = this.#o.db): Promise<ThreadSummaryRecord> {
    const now = isoTime(this.#o.clock.now())
    const row = {
      id: newId(),
      owner_id: input.owner_id,
      agent_name: input.agent_name ?? null,
      task_id: input.task_id ?? null,
      title: input.title ?? null,
      created_at: now,
      updated_at: now,
    }
    await db.insertInto('threads').values(row).execute()
    return toSummary(row)
  }

  /** The thread, or null when it does not exist (never created, or deleted by its owner). No access check: for modules. */
  async find(id: string, db: Kysely<Database> = this.#o.db): Promise<ThreadSummaryRecord | null> {
    const row = await db.selectFrom('threads').selectAll().where('id', '=', id).executeTakeFirst()
    return row ? toSummary(row) : null
  }

  /**
   * Appends messages in order (one transaction, the caller's if given) and moves the thread's updated_at. A thread that
   * no longer exists is a not-found error: its owner deleted it, and the caller decides what that means.
   */
  async append(threadId: string, messages: readonly NewThreadMessage[], db: Kysely<Database> = this.#o.db): Promise<ThreadMessageRecord[]> {
    const issues = messages.flatMap((message, index) =>
      ROLES.has(message.role)
        ? []
        : [{ loc: [index, 'role'], msg: 'Input should be system, user, assistant or tool', type: 'literal_error', input: message.role as unknown }],
    )
    if (issues.length > 0) throw invalidInput(...issues)
    const now = isoTime(this.#o.clock.now())
    return inTransaction(db, async (trx) => {
      const moved = await trx.updateTable('threads').set({ updated_at: now }).where('id', '=', threadId).executeTakeFirst()
      if (moved.numUpdatedRows === 0n) throw notFound(THREAD_NOT_FOUND)
      const rows = messages.map((message) => toMessageRow(threadId, newId(), now, message))
      if (rows.length > 0) await trx.insertInto('thread_messages').values(rows).execute()
      return rows.map(toMessageRecord)
    })
  }

  /**
   * The latest `limit` messages that fit in HISTORY_MAX_CHARS (the newest always), oldest first, as a model reads them.
   * The window never starts with tool results whose call fell outside it: providers refuse a result without its call.
   */
  async history(threadId: string, limit: number, db: Kysely<Database> = this.#o.db): Promise<ChatMessage[]> {
    const rows: ThreadMessagesTable[] = []
    const turns = new EventLoopTurns(READ_TURN_MS)
    let chars = 0
    read: for (let before: string | null = null; rows.length < limit; ) {
      let page = db.selectFrom('thread_messages').selectAll().where('thread_id', '=', threadId)
      if (before !== null) page = page.where('id', '<', before)
      const found = await page
        .orderBy('id', 'desc')
        .limit(Math.min(READ_PAGE, limit - rows.length))
        .execute()
      for (const row of found) {
        chars += messageChars(row)
        if (rows.length > 0 && chars > HISTORY_MAX_CHARS) break read
        rows.push(row)
      }
      if (found.length < READ_PAGE) break
      before = found.at(-1)!.id
      await turns.maybe()
    }
    const messages = rows.reverse().map((row) => toChatMessage(toMessageRecord(row)))
    const first = messages.findIndex((message) => message.role !== 'tool')
    return first === -1 ? [] : messages.slice(first)
  }
}
