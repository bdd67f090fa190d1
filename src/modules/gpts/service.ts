// GPT apps as admins manage them (docs/api.md "GPT apps"): create one with its key (shown once), read and list them,
// rotate the key, uninstall. Every change is audited in its own transaction and moves the GPTs revision, so a rotated
// or uninstalled key fails on the very next request.
import type { Static } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { GptsTable } from '../../platform/db/tables/gpts.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { isUniqueViolation } from '../../platform/db/unique-violation.ts'
import { conflict, DomainError, invalidInput, notFound, type InputIssue } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { Revision } from '../../platform/revision.ts'
import { agentNameIssue, authorizeAgent, normaliseAgentName, type ApplicationUsesCheck } from '../agents/index.ts'
import { mintGptKey } from './keys.ts'
import type { CreateGptBody, Gpt, GptListQuery, GptWithKey } from './schema.ts'

export type GptRecord = Static<typeof Gpt>
export type GptWithKeyRecord = Static<typeof GptWithKey>
export type CreateGpt = Static<typeof CreateGptBody>

export const GPT_NOT_FOUND = 'GPT not found'
export const ACTIONS_SCHEMA_PATH = '/api/gpt_public/openapi.json'
/** GET /api/gpts/list is the list: no GPT may be named so. */
const RESERVED_NAMES = new Set(['list'])

const alreadyInstalled = (name: string) => conflict(`A GPT named '${name}' is already installed`)

export interface GptsServiceOptions {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly revision: Revision
  /** The applications module's check that each application exists and the caller may see it (422 per unknown one). */
  readonly checkApplications: ApplicationUsesCheck
}

export class GptsService {
  readonly #o: GptsServiceOptions

  constructor(options: GptsServiceOptions) {
    this.#o = options
  }

  /** The record as the API shows it; `origin` is where the instance is reached (the Actions schema's URL). */
  #record(row: GptsTable, origin: string): GptRecord {
    return {
      name: row.name,
      description: row.description,
      instructions: row.instructions,
      applications: JSON.parse(row.applications) as string[],
      agent_name: row.agent_name,
      visibility: row.visibility,
      installed: row.installed === 1,
      installed_at: row.installed_at,
      installed_by: row.installed_by,
      actions_openapi_url: `${origin}${ACTIONS_SCHEMA_PATH}`,
    }
  }

  /** The name and references checked all at once (422 naming each problem), applications de-duplicated in order. */
  async #checked(principal: Principal, input: CreateGpt): Promise<{ name: string; applications: string[]; agentName: string | null }> {
    const issues: InputIssue[] = []
    const name = normaliseAgentName(input.name)
    const nameIssue = agentNameIssue(input.name)
    if (nameIssue) issues.push(nameIssue)
    else if (RESERVED_NAMES.has(name)) issues.push({ loc: ['name'], msg: `'${name}' is reserved: choose another name`, type: 'value_error', input: input.name })
    const applications = [...new Set(input.applications)]
    try {
      await this.#o.checkApplications(
        this.#o.db,
        principal,
        input.applications.map((apiName) => ({ api_name: apiName })),
      )
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'invalid_input') throw error
      // The check locates each unknown application at ['applications', i, 'api_name']: here the entry is the name itself.
      for (const issue of error.issues) issues.push({ ...issue, loc: issue.loc.slice(0, 2) })
    }
    const agentName = input.agent_name ?? null
    if (agentName !== null) {
      try {
        await authorizeAgent(this.#o.db, agentName, principal)
      } catch (error) {
        if (!(error instanceof DomainError) || error.kind !== 'not_found') throw error
        issues.push({ loc: ['agent_name'], msg: `Agent not found: '${agentName}'`, type: 'value_error', input: agentName })
      }
    }
    if (issues.length > 0) throw invalidInput(...issues)
    return { name, applications, agentName }
  }

  /** Admins only (the route says so). 201 with the record and, this once, its key. */
  async create(principal: Principal, input: CreateGpt, origin: string): Promise<GptWithKeyRecord> {
    const { name, applications, agentName } = await this.#checked(principal, input)
    const now = isoTime(this.#o.clock.now())
    const row: GptsTable = {
      id: newId(),
      name,
      description: input.description,
      instructions: input.instructions,
      applications: JSON.stringify(applications),
      agent_name: agentName,
      visibility: input.visibility,
      installed: 1,
      installed_at: now,
      installed_by_user_id: principal.userId,
      installed_by: principal.email,
      uninstalled_at: null,
      uninstalled_by_user_id: null,
    }
    const key = mintGptKey()
    try {
      await inTransaction(this.#o.db, async (trx) => {
        if (await trx.selectFrom('gpts').select('id').where('name', '=', name).where('installed', '=', 1).executeTakeFirst()) throw alreadyInstalled(name)
        await trx.insertInto('gpts').values(row).execute()
        await this.#addKey(trx, row.id, key, principal.userId, now)
        await writeAudit(trx, this.#o.clock, {
          actor_id: principal.userId,
          action: 'gpt.create',
          target_type: 'gpt',
          target_id: row.id,
          details: { name, applications, agent_name: agentName, visibility: input.visibility, key_hint: key.hint },
        })
        await this.#o.revision.changed(trx)
      })
    } catch (error) {
      // The one unique key this transaction can collide with: the installed name.
      if (isUniqueViolation(error)) throw alreadyInstalled(name)
      throw error
    }
    return { ...this.#record(row, origin), api_key: key.key }
  }

  async #addKey(trx: Kysely<Database>, gptId: string, key: ReturnType<typeof mintGptKey>, actorId: string, now: string): Promise<void> {
    await trx
      .insertInto('gpt_keys')
      .values({ id: newId(), gpt_id: gptId, key_hash: key.hash, hint: key.hint, created_at: now, created_by_user_id: actorId, revoked_at: null })
      .execute()
  }

  /** The installed GPT named so, else its newest uninstalled record, else null. */
  async #byName(db: Kysely<Database>, name: string): Promise<GptsTable | null> {
    return (
      (await db.selectFrom('gpts').selectAll().where('name', '=', name).orderBy('installed', 'desc').orderBy('installed_at', 'desc').executeTakeFirst()) ?? null
    )
  }

  /** What `principal` may see: admins every GPT (uninstalled ones too); members installed public ones and private ones they installed. */
  #visible(principal: Principal, row: GptsTable): boolean {
    if (principal.role === 'admin') return true
    return row.installed === 1 && (row.visibility === 'public' || row.installed_by_user_id === principal.userId)
  }

  async get(principal: Principal, name: string, origin: string): Promise<GptRecord> {
    const row = await this.#byName(this.#o.db, name)
    if (!row || !this.#visible(principal, row)) throw notFound(GPT_NOT_FOUND)
    return this.#record(row, origin)
  }

  /** Installed GPTs only, by name; both flags default to true. */
  async list(principal: Principal, query: Static<typeof GptListQuery>, origin: string): Promise<GptRecord[]> {
    const visibilities = [
      ...(query.include_private_gpts === false ? [] : (['private'] as const)),
      ...(query.include_public_gpts === false ? [] : (['public'] as const)),
    ]
    if (visibilities.length === 0) return []
    const rows = await this.#o.db.selectFrom('gpts').selectAll().where('installed', '=', 1).where('visibility', 'in', visibilities).orderBy('name').execute()
    return rows.filter((row) => this.#visible(principal, row)).map((row) => this.#record(row, origin))
  }

  /** A new key for an installed GPT; the old one stops working at once. 404 unknown, 409 uninstalled. */
  async rotateKey(principal: Principal, name: string, origin: string): Promise<GptWithKeyRecord> {
    const key = mintGptKey()
    const row = await inTransaction(this.#o.db, async (trx) => {
      const found = await this.#byName(trx, name)
      if (!found) throw notFound(GPT_NOT_FOUND)
      if (found.installed !== 1) throw conflict(`GPT '${found.name}' is uninstalled: its key cannot be rotated`)
      const now = isoTime(this.#o.clock.now())
      await trx.updateTable('gpt_keys').set({ revoked_at: now }).where('gpt_id', '=', found.id).where('revoked_at', 'is', null).execute()
      await this.#addKey(trx, found.id, key, principal.userId, now)
      await writeAudit(trx, this.#o.clock, {
        actor_id: principal.userId,
        action: 'gpt.rotate_key',
        target_type: 'gpt',
        target_id: found.id,
        details: { name: found.name, key_hint: key.hint },
      })
      await this.#o.revision.changed(trx)
      return found
    })
    return { ...this.#record(row, origin), api_key: key.key }
  }

  /** Uninstalls: keys revoked, record kept (installed: false) but no longer listed. 404 unknown, 409 already uninstalled. */
  async uninstall(principal: Principal, name: string): Promise<{ message: string; uninstalled: true }> {
    return inTransaction(this.#o.db, async (trx) => {
      const found = await this.#byName(trx, name)
      if (!found) throw notFound(GPT_NOT_FOUND)
      if (found.installed !== 1) throw conflict(`GPT '${found.name}' is already uninstalled`)
      const now = isoTime(this.#o.clock.now())
      await trx.updateTable('gpts').set({ installed: 0, uninstalled_at: now, uninstalled_by_user_id: principal.userId }).where('id', '=', found.id).execute()
      await trx.updateTable('gpt_keys').set({ revoked_at: now }).where('gpt_id', '=', found.id).where('revoked_at', 'is', null).execute()
      await writeAudit(trx, this.#o.clock, {
        actor_id: principal.userId,
        action: 'gpt.uninstall',
        target_type: 'gpt',
        target_id: found.id,
        details: { name: found.name },
      })
      await this.#o.revision.changed(trx)
      return { message: `GPT '${found.name}' uninstalled`, uninstalled: true as const }
    })
  }
}
