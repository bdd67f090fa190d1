// /api/org/settings (workflow recording and retention) and /api/audit: admin only.
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import type { Clock } from '../../platform/clock.ts'
import type { DatabaseHandle } from '../../platform/db/database.ts'
import { listAudit } from '../../platform/audit.ts'
import { readOrgSettings, updateOrgSettings } from '../../platform/org-settings.ts'
import type { Static } from '@sinclair/typebox'
import { invalidInput, type InputIssue } from '../../platform/errors.ts'
import { parseAllowEntry } from '../../platform/outbound/allow-list.ts'
import { AuditEntry, AuditQuery, OrgSettings, OrgSettingsBody, SecretsKeyRotated } from './schema.ts'
import type { SecretsKeyRotation } from './secrets-key.ts'

/** Every allow-list entry must parse (422 at its index), and is stored trimmed. */
function checkedSettings(body: Static<typeof OrgSettingsBody>): Static<typeof OrgSettingsBody> {
  if (!body.outbound_allow) return body
  const issues: InputIssue[] = []
  const entries = body.outbound_allow.map((raw, index) => {
    try {
      return parseAllowEntry(raw).text
    } catch (error) {
      issues.push({ loc: ['outbound_allow', index], msg: (error as Error).message, type: 'value_error', input: raw })
      return raw
    }
  })
  if (issues.length > 0) throw invalidInput(...issues)
  return { ...body, outbound_allow: [...new Set(entries)] }
}

export function orgRoutes(guard: AuthGuard, database: DatabaseHandle, clock: Clock, secretsKey: SecretsKeyRotation) {
  const tags = ['org settings']
  return new Elysia({ name: 'organisation-routes' })
    .use(guard)
    .get('/api/org/settings', () => readOrgSettings(database.db), {
      auth: 'admin',
      response: { 200: OrgSettings },
      detail: { tags, summary: 'Organisation settings: workflow recording mode, run retention and the outbound allow list' },
    })
    .put('/api/org/settings', ({ principal, body }) => updateOrgSettings(database.db, clock, principal.userId, checkedSettings(body)), {
      auth: 'admin',
      body: OrgSettingsBody,
      response: { 200: OrgSettings },
      detail: { tags, summary: 'Change organisation settings (audited); new runs pin the recording mode at start' },
    })
    .post('/api/org/secrets/rotate', ({ principal }) => secretsKey.rotate(principal.userId), {
      auth: 'admin',
      response: { 200: SecretsKeyRotated },
      detail: {
        tags,
        summary: 'Rotate the key that seals stored secrets (credentials, tokens): re-encrypt them all, retire unused keys',
        description:
          'A new key in secrets/credentials.key becomes current, every sealed value of every kind (namespaces) is moved to it, and keys no value uses are removed. ' +
          'Take a new backup afterwards: FILE.keys of older backups does not hold the new key. Audited (secrets_key.rotate).',
      },
    })
    .get('/api/audit', ({ query }) => listAudit(database.db, query), {
      auth: 'admin',
      query: AuditQuery,
      response: { 200: t.Array(AuditEntry) },
      detail: {
        tags: ['audit'],
        summary: 'The audit log, newest first: users, roles, tokens, licences, settings, approvals and cancelled runs; filter by action, actor and time',
      },
    })
}
