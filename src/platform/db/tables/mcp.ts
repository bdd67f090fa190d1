// The MCP endpoints' own state (migration 0027).

/** The client name a legacy (2025-era) MCP caller gave in its initialize, for its later stateless requests on any instance. */
export interface McpClientNamesTable {
  /** SHA-256 hex of the user id and the bearer token the caller sent: the token itself is never stored. */
  caller_hash: string
  /** `clientInfo.name`, at most 200 characters. */
  client_name: string
  /** Epoch ms of the last initialize that set it: rows not refreshed for 30 days are deleted. */
  updated_at: number
}

export interface McpTables {
  mcp_client_names: McpClientNamesTable
}
