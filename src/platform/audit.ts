// The organisation's audit log: who changed access, secrets, licences, settings or runs, and when. Every module writes
// here, inside the transaction of the change it records, so an entry exists exactly when the change does.
import type { Kysely } from 'kysely'
import { isoTime, type Clock } from './clock.ts'
import type { Database } from './db/schema.ts'
import { pagedList, resolvePage } from './http/paging.ts'
import { newId } from './ids.ts'

export interface AuditEntry {
  /** The user who acted; null for the system (a gate timing out). */
  actor_id: string | null
  /** `<subject>.<verb>`: user.create, user.deactivate, token.revoke, license.apply, workflow.cancel… */
  action: string
  target_type: string
  target_id: string
  /** What changed, never a secret (no passwords, tokens or licence tokens). */
  details: Record<string, unknown>
}

export async function writeAudit(db: Kysely<Database>, clock: Clock, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newId(),
      at: isoTime(clock.now()),
      actor_id: entry.actor_id,
      action: entry.action,
      target_type: entry.target_type,
      target_id: entry.target_id,
      details: JSON.stringify(entry.details),
    })
    .execute()
}

export interface AuditRecord {
  id: string
  at: string
  actor_id: string | null
  actor_email: string | null
  action: string
  target_type: string
  target_id: string
  details: Record<string, unknown>
}

export interface AuditFilter {
  action?: string
  actor_id?: string
  /** Inclusive lower bound on `at`, ISO 8601. */
  since?: string
  /** Exclusive upper bound on `at`, ISO 8601. */
  until?: string
  limit?: number
  offset?: number
}

/** The audit list's pages: 100 entries unless asked, at most 500. */
export const AUDIT_PAGING = pagedList(100)

/** Newest first; served by the primary key (UUIDv7 = time order) or audit_log_action (action, id). */
export async function listAudit(db: Kysely<Database>, query: AuditFilter): Promise<AuditRecord[]> {
  let q = db
    .selectFrom('audit_log')
    .leftJoin('users', 'users.id', 'audit_log.actor_id')
    .select([
      'audit_log.id',
      'audit_log.at',
      'audit_log.actor_id',
      'users.email as actor_email',
      'audit_log.action',
      'audit_log.target_type',
      'audit_log.target_id',
      'audit_log.details',
    ])
  if (query.action) q = q.where('audit_log.action', '=', query.action)
  if (query.actor_id) q = q.where('audit_log.actor_id', '=', query.actor_id)
  // `at` is stored as ISO 8601 UTC with milliseconds, so text order is time order.
  if (query.since) q = q.where('audit_log.at', '>=', isoTime(Date.parse(query.since)))
  if (query.until) q = q.where('audit_log.at', '<', isoTime(Date.parse(query.until)))
  const { limit, offset } = resolvePage(query, AUDIT_PAGING)
  const rows = await q.orderBy('audit_log.id', 'desc').limit(limit).offset(offset).execute()
  return rows.map((row) => ({ ...row, actor_email: row.actor_email ?? null, details: JSON.parse(row.details) }))
}
