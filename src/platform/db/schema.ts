// The Kysely `Database` interface: the foundation's tables here, each capability's in tables/<capability>.ts.
import type { Generated } from 'kysely'
import type { AgentsTables } from './tables/agents.ts'
import type { GptsTables } from './tables/gpts.ts'
import type { ClusterTables } from './tables/cluster.ts'
import type { ApplicationsTables } from './tables/applications.ts'
import type { InteractionsTables } from './tables/interactions.ts'
import type { MarketplaceTables } from './tables/marketplace.ts'
import type { McpTables } from './tables/mcp.ts'
import type { McpServersTables } from './tables/mcp-servers.ts'
import type { OauthTables } from './tables/oauth.ts'
import type { SecretsTables } from './tables/secrets.ts'
import type { SessionsTables } from './tables/sessions.ts'
import type { TasksTables } from './tables/tasks.ts'
import type { UiTemplatesTables } from './tables/ui-templates.ts'
import type { ThreadsTables } from './tables/threads.ts'
import type { WorkflowsTables } from './tables/workflows.ts'

/** The single row that says this instance is provisioned and for whom. */
export interface InstanceTable {
  id: Generated<number>
  provisioned_at: string
  org_name: string
  customer_id: string
  /** The organisation's own account, which the tenant_org_token acts as. */
  org_user_id: string
}

export type UserRole = 'admin' | 'member'
/** `person` logs in and takes a seat; `organisation` is the account behind org tokens. */
export type UserKind = 'person' | 'organisation'

export interface UsersTable {
  id: string
  kind: UserKind
  email: string
  name: string
  role: UserRole
  password_hash: string | null
  active: number
  /** Access tokens carry the version they were issued under; bumping it (deactivation, password change) revokes them all. */
  session_version: number
  created_at: string
  updated_at: string
}

export type ApiTokenKind = 'org' | 'pat'

export interface ApiTokensTable {
  id: string
  user_id: string
  kind: ApiTokenKind
  name: string
  /** SHA-256 hex of the whole token; the token itself is never stored. */
  token_hash: string
  /** The last characters, so a list can tell tokens apart without revealing them. */
  hint: string
  created_at: string
  revoked_at: string | null
}

export interface LicensesTable {
  id: string
  lic: string
  customer_id: string
  org_name: string
  seats: number
  /** JSON array of strings. */
  features: string
  issued_at: string
  not_before: string
  expires_at: string
  token: string
  applied_at: string
  applied_by: string | null
}

/** Migration 0001. */
export interface FoundationTables {
  instance: InstanceTable
  users: UsersTable
  api_tokens: ApiTokensTable
  licenses: LicensesTable
}

export interface Database
  extends FoundationTables,
    InteractionsTables,
    AgentsTables,
    TasksTables,
    ThreadsTables,
    WorkflowsTables,
    ApplicationsTables,
    OauthTables,
    SecretsTables,
    SessionsTables,
    MarketplaceTables,
    GptsTables,
    McpServersTables,
    McpTables,
    UiTemplatesTables,
    ClusterTables {}
