// Organisation settings (how workflow runs are recorded and kept, which private destinations outbound calls may
// reach, how many operation tools an MCP endpoint lists); each change is audited.
import type { Kysely } from 'kysely'
import { writeAudit } from './audit.ts'
import { isoTime, type Clock } from './clock.ts'
import type { Database } from './db/schema.ts'
import type { RecordingMode } from './db/tables/workflows.ts'
import { LocalRevision, type Revision } from './revision.ts'

export interface OrgSettings {
  workflow_recording: RecordingMode
  /** Finished runs older than this are pruned in batches. */
  workflow_retention_days: number
  /** Destinations outbound calls may reach although the address policy refuses them (hosts, host:port, CIDRs). */
  outbound_allow: string[]
  /** Above this many operation tools, an agent's or MCP app's endpoint offers find_operations and call_operation instead. */
  mcp_operation_tool_limit: number
  updated_at: string | null
  updated_by: string | null
}

export const DEFAULT_SETTINGS = Object.freeze({ workflow_recording: 'full' as RecordingMode, workflow_retention_days: 90, mcp_operation_tool_limit: 64 })
/** The bounds of mcp_operation_tool_limit: 0 (always the dynamic mode) to one tools/list page. */
export const MCP_OPERATION_TOOL_LIMIT_MAX = 1000
const KEYS = ['workflow_recording', 'workflow_retention_days', 'outbound_allow', 'mcp_operation_tool_limit'] as const
type SettingKey = (typeof KEYS)[number]
/** Arrays are stored as JSON text, scalars as their string. */
const stored = (value: unknown): string => (Array.isArray(value) ? JSON.stringify(value) : String(value))

// Moved by every change, per database: readers that keep settings (the outbound allow list, read on every outbound
// call) reload when it moves instead of querying each time. The server hands in the revision every instance on the
// database shares (platform/cluster); without one (tools, tests of this file alone) it lives in memory.
const revisions = new WeakMap<Kysely<Database>, Revision>()

/** Makes `revision` the one settings changes on `db` move and settings readers on `db` watch. */
export function shareOrgSettingsRevision(db: Kysely<Database>, revision: Revision): void {
  revisions.set(db, revision)
}

function revisionOf(db: Kysely<Database>): Revision {
  let revision = revisions.get(db)
  if (!revision) {
    revision = new LocalRevision()
    revisions.set(db, revision)
  }
  return revision
}

/** Moves whenever a change made through `updateOrgSettings(db, …)` commits. */
export const orgSettingsRevision = (db: Kysely<Database>): number => revisionOf(db).value

/** readOrgSettings, kept until the next change commits (on this instance or another). */
export function cachedOrgSettings(db: Kysely<Database>): () => Promise<OrgSettings> {
  let kept: { revision: number; settings: Promise<OrgSettings> } | null = null
  const current = (): Promise<OrgSettings> => {
    const revision = orgSettingsRevision(db)
    if (kept?.revision !== revision) {
      const settings = readOrgSettings(db)
      kept = { revision, settings }
      settings.catch(() => {
        kept = null
      })
    }
    return kept.settings
  }
  return () => {
    const syncing = revisionOf(db).sync?.()
    return syncing ? syncing.then(current) : current()
  }
}

export async function readOrgSettings(db: Kysely<Database>): Promise<OrgSettings> {
  const rows = await db
    .selectFrom('org_settings')
    .selectAll()
    .where('key', 'in', [...KEYS])
    .execute()
  const settings: OrgSettings = { ...DEFAULT_SETTINGS, outbound_allow: [], updated_at: null, updated_by: null }
  for (const row of rows) {
    if (row.key === 'workflow_recording') settings.workflow_recording = row.value as RecordingMode
    if (row.key === 'workflow_retention_days') settings.workflow_retention_days = Number(row.value)
    if (row.key === 'outbound_allow') settings.outbound_allow = JSON.parse(row.value)
    if (row.key === 'mcp_operation_tool_limit') settings.mcp_operation_tool_limit = Number(row.value)
    if (!settings.updated_at || row.updated_at > settings.updated_at) {
      settings.updated_at = row.updated_at
      settings.updated_by = row.updated_by
    }
  }
  return settings
}

/** Changes only the given settings, and audits each real change in the same transaction. */
export async function updateOrgSettings(
  db: Kysely<Database>,
  clock: Clock,
  actorId: string,
  changes: Partial<Pick<OrgSettings, SettingKey>>,
): Promise<OrgSettings> {
  const updated = await db.transaction().execute(async (trx) => {
    const before = await readOrgSettings(trx)
    const now = isoTime(clock.now())
    const changed: Record<string, { from: unknown; to: unknown }> = {}
    for (const key of KEYS) {
      const value = changes[key]
      if (value === undefined || stored(value) === stored(before[key])) continue
      changed[key] = { from: before[key], to: value }
      await trx
        .insertInto('org_settings')
        .values({ key, value: stored(value), updated_at: now, updated_by: actorId })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: stored(value), updated_at: now, updated_by: actorId }))
        .execute()
    }
    if (Object.keys(changed).length)
      await writeAudit(trx, clock, {
        actor_id: actorId,
        action: 'org_settings.update',
        target_type: 'org_settings',
        target_id: 'org',
        details: { changes: changed },
      })
    if (Object.keys(changed).length) await revisionOf(db).changed(trx)
    return readOrgSettings(trx)
  })
  return updated
}
