// Request and response schemas of the organisation's settings and its audit log.
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { AUDIT_PAGING } from '../../platform/audit.ts'
import { pageQueryFields } from '../../platform/http/paging.ts'
import { DateTime, NullableDateTime } from '../../platform/http/schema-pieces.ts'
import { MCP_OPERATION_TOOL_LIMIT_MAX } from '../../platform/org-settings.ts'

// A record, not an open object: the server's TypeBox Clean keeps a record's entries but drops an open object's unknown keys.
const Free = t.Record(t.String(), t.Unknown())

const Recording = t.Union([t.Literal('full'), t.Literal('headers_only'), t.Literal('disabled')])
export const OrgSettingsBody = t.Object({
  workflow_recording: t.Optional(Recording),
  workflow_retention_days: t.Optional(t.Integer({ minimum: 1, maximum: 3650 })),
  outbound_allow: t.Optional(
    t.Array(t.String({ maxLength: 300 }), {
      maxItems: 256,
      description:
        "Private destinations outbound calls (applications, later git and MCP servers) may reach: hosts (api.internal), host:port, IP addresses or CIDRs (10.0.0.0/8). Replaces the whole list. Added to the operator's AGENTBOX_OUTBOUND_ALLOW.",
    }),
  ),
  mcp_operation_tool_limit: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: MCP_OPERATION_TOOL_LIMIT_MAX,
      description:
        "When an agent's or MCP app's endpoint would list more operation tools than this, it offers find_operations and call_operation in their place (0: always). Default 64",
    }),
  ),
})
export const OrgSettings = t.Object({
  workflow_recording: Recording,
  workflow_retention_days: Type.Integer(),
  outbound_allow: t.Array(t.String()),
  mcp_operation_tool_limit: Type.Integer(),
  updated_at: NullableDateTime,
  updated_by: t.Union([t.String(), t.Null()]),
})
export const AuditQuery = t.Object({
  action: t.Optional(
    t.String({ description: 'e.g. user.create, user.deactivate, token.revoke, license.apply, org_settings.update, workflow.approval, workflow.cancel' }),
  ),
  actor_id: t.Optional(t.String({ description: 'Only what this user did' })),
  since: t.Optional(t.String({ format: 'date-time', description: 'Entries at or after this instant' })),
  until: t.Optional(t.String({ format: 'date-time', description: 'Entries before this instant' })),
  ...pageQueryFields(AUDIT_PAGING),
})
export const AuditEntry = t.Object({
  id: t.String(),
  at: DateTime,
  actor_id: t.Union([t.String(), t.Null()]),
  actor_email: t.Union([t.String(), t.Null()]),
  action: t.String(),
  target_type: t.String(),
  target_id: t.String(),
  details: Free,
})

export const SecretsKeyRotated = t.Object({
  key_id: t.String({ description: 'The key that now seals' }),
  reencrypted: t.Integer(),
  unreadable: t.Integer({ description: 'Values whose key is missing (restored without FILE.keys): left as they are' }),
  retired_key_ids: t.Array(t.String()),
  namespaces: t.Array(
    t.Object({
      namespace: t.String({ description: 'The kind of secret: app_credential (application credentials), git_repository_token…' }),
      values: t.Integer({ description: 'Stored values of this kind' }),
      reencrypted: t.Integer(),
      unreadable: t.Integer(),
    }),
    { description: 'Every kind of sealed secret the instance stores, by name: rotation covers them all' },
  ),
})
