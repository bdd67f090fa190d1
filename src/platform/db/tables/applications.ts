// Tables of migration 0007_applications: applications imported from API descriptions, their operations and the
// credentials users and the organisation connect to them (issue 16).

/** One application: an external HTTP API registered from an OpenAPI document. */
export interface ApplicationsTable {
  id: string
  /** Lowercase kebab-case, unique; also the application_id of the API. Never renamed. */
  api_name: string
  title: string
  description: string
  /** The API's own version (`info.version`). */
  version: string
  /** As uploaded: `2.0`, `3.0.3`, `3.1.0`. */
  openapi_version: string
  /** The document's first server URL (variables at their defaults); may be relative or null. */
  server_url: string | null
  /** Set by the owner or an admin; wins over server_url. */
  base_url: string | null
  /** JSON object; `priority` is an integer 1–10 when set. */
  metadata: string
  /** Copied out of metadata for the `min_priority` filter; null when unset. */
  priority: number | null
  global_spec: number
  shared_security_info: number
  create_mcp: number
  /** JSON array of security schemes `{name, type, scheme?, in?, param_name?}`. */
  security_schemes: string
  /** JSON array of available scopes `{scope, description, security_schemes, operations}`. */
  scopes: string
  /** JSON array of the last import's warnings `{pointer, message}`. */
  warnings: string
  operations_count: number
  /** 1 at the first import, +1 for each `replace`. */
  revision: number
  owner_id: string
  created_at: string
  updated_at: string
}

export interface ApplicationOperationsTable {
  application_id: string
  operation_id: string
  /** Document order (paths in order, then methods get, put, post, delete, options, head, patch, trace). */
  seq: number
  method: string
  path: string
  summary: string
  description: string
  /** JSON array of strings. */
  tags: string
  deprecated: number
  /** JSON Schema 2020-12 of the arguments. */
  input_schema: string
  /** JSON array of scope names the operation's security mentions. */
  scopes: string
  /** JSON array of requirement alternatives `{scheme: [scopes]}`; `[]` needs no credential. */
  security: string
  /** JSON array of where each argument goes (operations.ts ArgumentTarget). */
  targets: string
  /** JSON `{status, content_type, body}` a dry run answers with. */
  sample: string
}

/** One connected credential; the secret only ever sealed (platform/secret-box.ts). */
export interface ApplicationCredentialsTable {
  application_id: string
  /** The security scheme's name in the document. */
  scheme: string
  /** A user id, or `org` for the organisation's shared credential. */
  owner: string
  /** The sealed JSON of the secret fields; its associated data binds application, owner and scheme. */
  sealed: string
  updated_at: string
  updated_by: string
}

/** Migration 0010: an MCP app's skills, absent until its first skill is added. */
export interface ApplicationSkillsTable {
  application_id: string
  /** JSON array of stored skills `{id, name, description, …frontmatter, content, created_at, updated_at}`. */
  skills: string
  updated_at: string
}

export interface ApplicationsTables {
  applications: ApplicationsTable
  application_operations: ApplicationOperationsTable
  application_credentials: ApplicationCredentialsTable
  application_skills: ApplicationSkillsTable
}
