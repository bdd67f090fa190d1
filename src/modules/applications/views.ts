// Applications and operations as the API shows them: the one place stored rows become response objects.
import type { ApplicationOperationsTable, ApplicationsTable } from '../../platform/db/tables/applications.ts'
import type { SecurityScheme } from './document/security.ts'
import type { ImportWarning } from './document/read.ts'
import type { AvailableScope } from './document/import.ts'

export const mcpPath = (apiName: string): string => `/app/${apiName}/mcp`

export interface ApplicationView {
  api_name: string
  application_id: string
  title: string
  description: string
  version: string
  openapi_version: string
  base_url: string | null
  server_url: string | null
  metadata: Record<string, unknown>
  global_spec: boolean
  shared_security_info: boolean
  create_mcp: boolean
  mcp_url: string | null
  operations_count: number
  scopes: string[]
  security_schemes: SecurityScheme[]
  warnings: ImportWarning[]
  owner_id: string
  revision: number
  created_at: string
  updated_at: string
}

export function applicationView(app: ApplicationsTable, origin: string): ApplicationView {
  return {
    api_name: app.api_name,
    application_id: app.api_name,
    title: app.title,
    description: app.description,
    version: app.version,
    openapi_version: app.openapi_version,
    base_url: app.base_url,
    server_url: app.server_url,
    metadata: JSON.parse(app.metadata),
    global_spec: app.global_spec === 1,
    shared_security_info: app.shared_security_info === 1,
    create_mcp: app.create_mcp === 1,
    mcp_url: app.create_mcp === 1 ? `${origin}${mcpPath(app.api_name)}` : null,
    operations_count: app.operations_count,
    scopes: (JSON.parse(app.scopes) as AvailableScope[]).map((scope) => scope.scope),
    security_schemes: JSON.parse(app.security_schemes),
    warnings: JSON.parse(app.warnings),
    owner_id: app.owner_id,
    revision: app.revision,
    created_at: app.created_at,
    updated_at: app.updated_at,
  }
}

export type OperationRow = Pick<
  ApplicationOperationsTable,
  'operation_id' | 'method' | 'path' | 'summary' | 'description' | 'tags' | 'input_schema' | 'scopes' | 'deprecated'
>

export const OPERATION_VIEW_COLUMNS = ['operation_id', 'method', 'path', 'summary', 'description', 'tags', 'input_schema', 'scopes', 'deprecated'] as const

export interface OperationView {
  operation_id: string
  method: string
  path: string
  summary: string
  description: string
  tags: string[]
  input_schema: Record<string, unknown>
  scopes: string[]
  deprecated: boolean
}

export function operationView(row: OperationRow): OperationView {
  return {
    operation_id: row.operation_id,
    method: row.method,
    path: row.path,
    summary: row.summary,
    description: row.description,
    tags: JSON.parse(row.tags),
    input_schema: JSON.parse(row.input_schema),
    scopes: JSON.parse(row.scopes),
    deprecated: row.deprecated === 1,
  }
}

/**
 * One operation as JSON text, spliced from the stored JSON columns instead of parsing every input schema and
 * serialising it again: GitHub's 1,200 operations carry 2 MB of schemas, and that round trip cost tens of ms.
 */
export function operationJson(row: OperationRow): string {
  return (
    `{"operation_id":${JSON.stringify(row.operation_id)},"method":${JSON.stringify(row.method)},"path":${JSON.stringify(row.path)},` +
    `"summary":${JSON.stringify(row.summary)},"description":${JSON.stringify(row.description)},"tags":${row.tags},` +
    `"input_schema":${row.input_schema},"scopes":${row.scopes},"deprecated":${row.deprecated === 1}}`
  )
}
