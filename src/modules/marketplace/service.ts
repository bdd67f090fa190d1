// The marketplace: the built-in catalog (sample agents compiled into the binary) and the organisation's catalog (agent
// versions admins published, kept as bundles in the database). Installing an entry imports its bundle for the caller
// with the import's rules. Nothing is ever fetched: it works air-gapped.
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { isUniqueViolation } from '../../platform/db/unique-violation.ts'
import { conflict, forbidden, notFound } from '../../platform/errors.ts'
import { resolvePage, uncappedList, type Page } from '../../platform/http/paging.ts'
import { newId } from '../../platform/ids.ts'
import type { BundlesService, BundleSummary, ImportOptions, ImportOutcome } from '../bundles/index.ts'
import { BUILT_IN_CATALOG, catalogBundle } from './catalog/index.ts'

export const ENTRY_NOT_FOUND = 'Marketplace entry not found'
export const MARKETPLACE_PAGING = uncappedList

export interface MarketplaceEntry {
  id: string
  source: 'builtin' | 'organisation'
  /** The agent's name in the bundle: what an install is called unless told otherwise. */
  name: string
  title: string
  description: string
  version: number
  skills: string[]
  /** Workflow names. */
  workflows: string[]
  /** Application api_names. */
  applications: string[]
  sha256: string
  size: number
  /** The publishing admin's e-mail; null for built-in entries. */
  published_by: string | null
  published_at: string | null
}

interface BuiltIn {
  entry: MarketplaceEntry
  bytes: Uint8Array
}

export interface MarketplaceDependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly bundles: BundlesService
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const titleOf = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replace(/-/g, ' ')

function matches(entry: MarketplaceEntry, needle: string): boolean {
  const haystack = [entry.name, entry.title, entry.description, ...entry.skills, ...entry.workflows, ...entry.applications].join('\n').toLowerCase()
  return needle.split(/\s+/).every((word) => haystack.includes(word))
}

export class MarketplaceService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #bundles: BundlesService
  /** The built-in bundles, made once from the sources compiled in (the same binary always makes the same bytes). */
  #builtIn: Promise<BuiltIn[]> | null = null

  constructor(deps: MarketplaceDependencies) {
    this.#db = deps.db
    this.#clock = deps.clock
    this.#bundles = deps.bundles
  }

  #builtInEntries(): Promise<BuiltIn[]> {
    this.#builtIn ??= Promise.all(
      BUILT_IN_CATALOG.map(async (agent) => {
        const bytes = await catalogBundle(agent)
        const summary = await this.#bundles.summary(bytes)
        const entry: MarketplaceEntry = {
          id: agent.id,
          source: 'builtin',
          ...this.#listed(summary),
          title: agent.title,
          sha256: sha256(bytes),
          size: bytes.byteLength,
          published_by: null,
          published_at: null,
        }
        return { entry, bytes }
      }),
    )
    // A failure is not kept: the next request tries again (and says what failed).
    this.#builtIn.catch(() => {
      this.#builtIn = null
    })
    return this.#builtIn
  }

  #listed(summary: BundleSummary) {
    return {
      name: summary.agent,
      title: titleOf(summary.agent),
      description: summary.description,
      version: summary.version === 'draft' ? 0 : summary.version,
      skills: summary.skills,
      workflows: summary.workflows,
      applications: summary.applications,
    }
  }

  /** Built-in entries first, then the organisation's, newest first; `q` keeps those whose names, description or parts hold every word. */
  async list(filters: { q?: string } & Page): Promise<MarketplaceEntry[]> {
    const rows = await this.#db
      .selectFrom('marketplace_entries as e')
      .leftJoin('users as u', 'u.id', 'e.published_by')
      .select([
        'e.id',
        'e.agent_name',
        'e.version',
        'e.description',
        'e.skills',
        'e.workflows',
        'e.applications',
        'e.sha256',
        'e.size',
        'e.published_at',
        'u.email',
      ])
      .orderBy('e.published_at', 'desc')
      .orderBy('e.id', 'desc')
      .execute()
    const organisation: MarketplaceEntry[] = rows.map((row) => ({
      id: row.id,
      source: 'organisation',
      name: row.agent_name,
      title: titleOf(row.agent_name),
      description: row.description,
      version: row.version,
      skills: JSON.parse(row.skills),
      workflows: JSON.parse(row.workflows),
      applications: JSON.parse(row.applications),
      sha256: row.sha256,
      size: row.size,
      published_by: row.email ?? null,
      published_at: row.published_at,
    }))
    const all = [...(await this.#builtInEntries()).map((builtIn) => builtIn.entry), ...organisation]
    const needle = filters.q?.trim().toLowerCase()
    const found = needle ? all.filter((entry) => matches(entry, needle)) : all
    const { limit, offset } = resolvePage(filters, MARKETPLACE_PAGING)
    return found.slice(offset, limit < 0 ? undefined : offset + limit)
  }

  /** Publishes a version of an agent (live when none is named) into the organisation's catalog. Admins only; the version must be one they may export. */
  async publish(principal: Principal, input: { agent_name: string; version?: number }): Promise<MarketplaceEntry> {
    if (principal.role !== 'admin') throw forbidden('Only admins may publish to the organisation catalog')
    const { bytes } = await this.#bundles.export(principal, input.agent_name, input.version ?? 'live')
    const summary = await this.#bundles.summary(bytes)
    const version = summary.version as number
    const id = newId()
    const now = isoTime(this.#clock.now())
    const row = {
      id,
      agent_name: summary.agent,
      version,
      description: summary.description,
      skills: JSON.stringify(summary.skills),
      workflows: JSON.stringify(summary.workflows),
      applications: JSON.stringify(summary.applications),
      bundle: bytes,
      sha256: sha256(bytes),
      size: bytes.byteLength,
      published_by: principal.userId,
      published_at: now,
    }
    try {
      await this.#db.transaction().execute(async (trx) => {
        await trx.insertInto('marketplace_entries').values(row).execute()
        await writeAudit(trx, this.#clock, {
          actor_id: principal.userId,
          action: 'marketplace.publish',
          target_type: 'marketplace_entry',
          target_id: id,
          details: { agent: summary.agent, version, sha256: row.sha256 },
        })
      })
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`Version ${version} of '${summary.agent}' is already in the organisation catalog`)
      throw error
    }
    return {
      id,
      source: 'organisation',
      ...this.#listed(summary),
      sha256: row.sha256,
      size: row.size,
      published_by: principal.email,
      published_at: now,
    }
  }

  /** The entry's bundle (any member may read the catalog). */
  async bundle(id: string): Promise<{ bytes: Uint8Array; filename: string }> {
    const builtIn = (await this.#builtInEntries()).find((candidate) => candidate.entry.id === id)
    if (builtIn) return { bytes: builtIn.bytes, filename: `${builtIn.entry.name}-v${builtIn.entry.version}.zip` }
    const row = await this.#db.selectFrom('marketplace_entries').select(['bundle', 'agent_name', 'version']).where('id', '=', id).executeTakeFirst()
    if (!row) throw notFound(ENTRY_NOT_FOUND)
    return { bytes: new Uint8Array(row.bundle), filename: `${row.agent_name}-v${row.version}.zip` }
  }

  /** Installs the entry for the caller: an import of its bundle, with the import's rules (a dry run keeps nothing). */
  async install(principal: Principal, id: string, options: ImportOptions): Promise<ImportOutcome> {
    const { bytes } = await this.bundle(id)
    return this.#bundles.import(principal, bytes, { note: `Installed from the marketplace (${id})`, ...options })
  }

  /** Removes an entry of the organisation catalog (admins); built-in entries stay. Installed agents are not touched. */
  async remove(principal: Principal, id: string): Promise<void> {
    if (principal.role !== 'admin') throw forbidden('Only admins may remove entries from the organisation catalog')
    if (BUILT_IN_CATALOG.some((agent) => agent.id === id)) throw conflict('Built-in entries cannot be removed')
    await this.#db.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('marketplace_entries').where('id', '=', id).executeTakeFirst()
      if (Number(removed.numDeletedRows) === 0) throw notFound(ENTRY_NOT_FOUND)
      await writeAudit(trx, this.#clock, {
        actor_id: principal.userId,
        action: 'marketplace.remove',
        target_type: 'marketplace_entry',
        target_id: id,
        details: {},
      })
    })
  }
}
