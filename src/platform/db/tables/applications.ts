// Tables of migration 0007_applications: applications imported from API descriptions and their operations (issue
// 16); 0010 their skills, 0015 their uploaded documents. Their credentials are sealed secrets (tables/secrets.ts).

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

/**
 * Migration 0015: the API description as uploaded, one per revision of the application (the last ten revisions are
 * kept). Applications imported before 0015 have none until their next re-import.
 */
export interface ApplicationDocumentsTable {
  application_id: string
  /** The application's revision this document was imported as. */
  revision: number
  /** The upload's media type (`application/json`, `application/yaml`…), or one inferred from the content. */
  media_type: string
  /** The upload's file name, or null when it had none. */
  filename: string | null
  /** SHA-256 (hex) of the document as uploaded. */
  sha256: string
  /** Bytes as uploaded. */
  size: number
  /** The document gzip-compressed. */
  content: Uint8Array
  created_at: string
  created_by: string
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
  application_documents: ApplicationDocumentsTable
  application_skills: ApplicationSkillsTable
}
