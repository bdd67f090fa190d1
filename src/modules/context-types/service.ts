// Context types of the tenant: list, create, get, replace, delete; names unique ignoring ASCII case (docs/api.md "Context types").
import { caselessName, kindOf } from '../../platform/db/dialect.ts'
import type { DatabaseKind } from '../../platform/db/target.ts'
import { isUniqueViolation } from '../../platform/db/unique-violation.ts'
import type { Static } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { ContextTypesTable } from '../../platform/db/tables/interactions.ts'
import { conflict, forbidden, invalidInput, notFound } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { ContextTypeBody } from './schema.ts'

export const CONTEXT_TYPE_NOT_FOUND = 'Context type not found'
export const NAME_TAKEN = 'A context type with this name already exists'
export const NOT_YOURS = 'Only the creator or an admin may change a context type'

export type ContextTypeInput = Static<typeof ContextTypeBody>

export interface ContextTypeRecord {
  id: string
  name: string
  summary: string
  description: string
  when_to_use: string
  how_to_generate: string
  created_by: string
  created_at: string
  updated_at: string
}

const RECORD_COLUMNS = ['id', 'name', 'summary', 'description', 'when_to_use', 'how_to_generate', 'created_by', 'created_at', 'updated_at'] as const

/** Trimmed; a name of only spaces is as empty as no name. */
function contentOf(input: ContextTypeInput) {
  const name = input.name.trim()
  if (name.length === 0)
    throw invalidInput({ loc: ['name'], msg: 'String should have at least 1 character', type: 'string_too_short', input: input.name, ctx: { min_length: 1 } })
  return {
    name,
    summary: input.summary ?? '',
    description: input.description ?? '',
    when_to_use: input.when_to_use ?? '',
    how_to_generate: input.how_to_generate ?? '',
  }
}

/** The unique index is the real guard (two concurrent creates); checking first only gives the common case a clean path. */
async function withNameUnique<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(NAME_TAKEN)
    throw error
  }
}

export class ContextTypesService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock

  readonly #kind: DatabaseKind

  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db
    this.#clock = clock
    this.#kind = kindOf(db)
  }

  /** By name, ignoring ASCII case: served by the unique caseless index on name (NOCASE on SQLite, lower(name) on PostgreSQL). */
  list(): Promise<ContextTypeRecord[]> {
    return this.#db.selectFrom('context_types').select(RECORD_COLUMNS).orderBy(caselessName(this.#kind, 'name')).execute()
  }

  async get(id: string): Promise<ContextTypeRecord> {
    const row = await this.#db.selectFrom('context_types').select(RECORD_COLUMNS).where('id', '=', id).executeTakeFirst()
    if (!row) throw notFound(CONTEXT_TYPE_NOT_FOUND)
    return row
  }

  create(principal: Principal, input: ContextTypeInput): Promise<ContextTypeRecord> {
    const now = isoTime(this.#clock.now())
    const row: ContextTypesTable = {
      id: newId(),
      ...contentOf(input),
      created_by: principal.email,
      created_by_user_id: principal.userId,
      created_at: now,
      updated_at: now,
    }
    return withNameUnique(() =>
      this.#db.transaction().execute(async (trx) => {
        await trx.insertInto('context_types').values(row).execute()
        await this.#audit(trx, principal, 'context_type.create', row.id, { name: row.name })
        const { created_by_user_id: _, ...record } = row
        return record
      }),
    )
  }

  /** PUT replaces every field (omitted texts become empty); id, creator and created_at stay. */
  replace(principal: Principal, id: string, input: ContextTypeInput): Promise<ContextTypeRecord> {
    const content = contentOf(input)
    return withNameUnique(() =>
      this.#db.transaction().execute(async (trx) => {
        await this.#assertMayChange(trx, principal, id)
        const record = await trx
          .updateTable('context_types')
          .set({ ...content, updated_at: isoTime(this.#clock.now()) })
          .where('id', '=', id)
          .returning(RECORD_COLUMNS)
          .executeTakeFirstOrThrow()
        await this.#audit(trx, principal, 'context_type.replace', id, { name: record.name })
        return record
      }),
    )
  }

  async delete(principal: Principal, id: string): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await this.#assertMayChange(trx, principal, id)
      await trx.deleteFrom('context_types').where('id', '=', id).execute()
      await this.#audit(trx, principal, 'context_type.delete', id, {})
    })
  }

  /** Context types steer what agents generate: who changed which is kept in the audit log, in the change's transaction. */
  #audit(db: Kysely<Database>, principal: Principal, action: string, id: string, details: Record<string, unknown>): Promise<void> {
    return writeAudit(db, this.#clock, { actor_id: principal.userId, action, target_type: 'context_type', target_id: id, details })
  }

  async #assertMayChange(db: Kysely<Database>, principal: Principal, id: string): Promise<void> {
    const row = await db.selectFrom('context_types').select('created_by_user_id').where('id', '=', id).executeTakeFirst()
    if (!row) throw notFound(CONTEXT_TYPE_NOT_FOUND)
    if (principal.role !== 'admin' && row.created_by_user_id !== principal.userId) throw forbidden(NOT_YOURS)
  }
}
