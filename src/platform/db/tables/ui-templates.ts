// Tables of migration 0020_ui_templates (issue 28): UI templates attached to operations of applications, each
// application's template repository, and what each template's last sync with that repository left.

/** One template (an MCP App: HTML a client renders for an operation's result). */
export interface UiTemplatesTable {
  /** UUIDv7; also the file name in the repository (`<id>.html`, `<id>.json`). */
  id: string
  application_id: string
  /** The application's api_name (never renamed), so MCP endpoints find templates without reading applications. */
  api_name: string
  operation_id: string
  /** `result` unless said otherwise; at most 32 characters. */
  type: string
  /** 1 for the operation's default template (at most one per operation: a partial unique index says so). */
  is_default: number
  /** `mcp-app`. */
  template_format: string
  /** At most 1 MiB. */
  html: string
  /** JSON `{resourceDomains?, connectDomains?, frameDomains?, baseUriDomains?}` or null. */
  csp_config: string | null
  /** JSON `{csp?, permissions?, domain?, prefersBorder?}` or null. */
  ui_meta: string | null
  /** +1 on every write: a pull applies the repository's version only over the revision it compared. */
  revision: number
  created_at: string
  created_by: string
  updated_at: string
  updated_by: string
}

/** An application's template repository. Its token is a sealed secret (namespace `git_repository_token`). */
export interface UiTemplateRepositoriesTable {
  application_id: string
  repo_url: string
  branch: string
  /** The folder in the repository under which `<api_name>/<operation_id>/<template_id>.html` live. */
  path: string
  /** The HTTP Basic user name sent with the token; null: a default. */
  username: string | null
  author_name: string | null
  author_email: string | null
  created_at: string
  updated_at: string
  updated_by: string
}

/**
 * What the last successful sync of a template saw, so the next one can tell who changed what since: the commit, the
 * blobs of the two files in the repository then, and the blobs of the local template as it was written then.
 * Cleared when the repository's URL, branch or path change.
 */
export interface UiTemplateSyncStateTable {
  template_id: string
  commit_sha: string
  remote_html_blob: string
  remote_json_blob: string
  local_html_blob: string
  local_json_blob: string
  synced_at: string
}

export interface UiTemplatesTables {
  ui_templates: UiTemplatesTable
  ui_template_repositories: UiTemplateRepositoriesTable
  ui_template_sync_state: UiTemplateSyncStateTable
}
