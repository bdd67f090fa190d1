// Tables of migration 0002_interactions: user settings, context types and the interaction store (issue 3).

/** One row per user who ever saved settings; the fields they provided, as one JSON object. */
export interface UserSettingsTable {
  user_id: string
  /** JSON object of the provided settings fields only; defaults are applied on read, never stored. */
  settings: string
  created_at: string
  updated_at: string
}

/** Kinds of context an agent may use or generate; names are unique per tenant (case-insensitive for ASCII). */
export interface ContextTypesTable {
  id: string
  /** Declared COLLATE NOCASE, so equality, the unique index and ORDER BY ignore ASCII case. */
  name: string
  summary: string
  description: string
  when_to_use: string
  how_to_generate: string
  /** The creator's e-mail as it was at creation (docs/api.md "Context types"). */
  created_by: string
  /** Who may replace or delete it besides admins. */
  created_by_user_id: string
  created_at: string
  updated_at: string
}

export type InteractionKind = 'mcp_tool' | 'api_action'

/** One recorded interaction: a native MCP tool call or an API action executed through the platform. Rows are immutable. */
export interface InteractionsTable {
  id: string
  user_id: string
  kind: InteractionKind
  /** The application title for API actions, the MCP server name for MCP tool calls: what summaries count by. */
  api_title: string
  /** The tool name (mcp_tool) or the operation (api_action). */
  action: string
  /** 1 when the call failed (for MCP: result.isError was true). */
  is_error: number
  duration_seconds: number | null
  conversation_id: string | null
  client_source: string | null
  user_input: string | null
  /** JSON text. */
  arguments: string | null
  /** JSON text. */
  result: string | null
  created_at: string
}

/**
 * Interactions per UTC day and api_title, kept exact by triggers on `interactions` (insert adds, delete subtracts) in the
 * writer's own transaction. Organisation-wide summaries read this instead of the raw rows.
 */
export interface InteractionDailyUsageTable {
  /** YYYY-MM-DD (UTC), the first 10 characters of created_at. */
  day: string
  api_title: string
  n: number
}

/** Migration 0006: the same counts per user and kind, kept exact by triggers; what member summaries read. */
export interface InteractionUserDailyUsageTable {
  user_id: string
  day: string
  api_title: string
  kind: InteractionKind
  n: number
}

/** Migration 0008 (insights): calls and failures per tool (mcp_tool) or operation (api_action) and day. */
export interface InteractionDailyToolsTable {
  day: string
  kind: InteractionKind
  /** The MCP server name or the application title. */
  api_title: string
  /** The tool name or the operation id. */
  action: string
  n: number
  errors: number
}

export interface InteractionUserDailyToolsTable extends InteractionDailyToolsTable {
  user_id: string
}

/** Migration 0008: how many calls of a day took up to 1.02^bucket ms (bucket 0: under 1 ms). */
export interface InteractionDailyDurationsTable {
  day: string
  bucket: number
  n: number
}

/** The same per MCP server or application title (insights for one agent). */
export interface InteractionTitleDailyDurationsTable extends InteractionDailyDurationsTable {
  api_title: string
}

export interface InteractionUserDailyDurationsTable extends InteractionDailyDurationsTable {
  user_id: string
}

/** Migration 0008: the organisation's calls and failures per day and kind. */
export interface InteractionDailyKindsTable {
  day: string
  kind: InteractionKind
  n: number
  errors: number
}

/** Migration 0008: the organisation's calls per tool or operation and calendar month (`2026-11`). */
export interface InteractionMonthlyToolsTable extends Omit<InteractionDailyToolsTable, 'day'> {
  month: string
}

/** Migration 0008: who made how many calls each day (active users). */
export interface InteractionDailyActiveTable {
  day: string
  user_id: string
  n: number
}

/** Migration 0008: the duration histogram per calendar month (`2026-11`). */
export interface InteractionMonthlyDurationsTable {
  month: string
  bucket: number
  n: number
}

export interface InteractionUserMonthlyDurationsTable extends InteractionMonthlyDurationsTable {
  user_id: string
}

/** Migration 0011: one user's calls per tool or operation and calendar month (member insights). */
export interface InteractionUserMonthlyToolsTable extends InteractionMonthlyToolsTable {
  user_id: string
}

/** Migration 0011: one user's calls per tool or operation, all stored interactions. */
export interface InteractionUserToolsTable extends Omit<InteractionUserMonthlyToolsTable, 'month'> {}

/** Migration 0011: one user's duration histogram, all stored interactions. */
export interface InteractionUserDurationsTable {
  user_id: string
  bucket: number
  n: number
}

/**
 * SQLite only (migration 0029): one row, the rowid of the last interaction counted into every rollup
 * (platform/db/rollup-folder.ts). PostgreSQL counts each batch as it inserts it and has no such table.
 */
export interface InteractionRollupWatermarkTable {
  id: number
  last_rowid: number
}

/** d01 … d31. */
type DayOfMonthColumn = `d${'0' | '1' | '2'}${'1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9'}` | 'd10' | 'd20' | 'd30' | 'd31'

/**
 * PostgreSQL only (migration 0030): interaction_daily_usage again, a row per month and title with a column per day of
 * the month (0 for the days the month does not have), so a year of the organisation's days is ~12 rows per title.
 */
export type InteractionDailyUsageByMonthTable = {
  /** YYYY-MM (UTC), the first 7 characters of created_at. */
  month: string
  api_title: string
} & { [Day in DayOfMonthColumn]: number }

/** PostgreSQL only (migration 0030): interaction_user_daily_usage the same way, every kind of call counted together. */
export type InteractionUserDailyUsageByMonthTable = InteractionDailyUsageByMonthTable & { user_id: string }

export interface InteractionsTables {
  user_settings: UserSettingsTable
  context_types: ContextTypesTable
  interactions: InteractionsTable
  interaction_daily_usage: InteractionDailyUsageTable
  interaction_user_daily_usage: InteractionUserDailyUsageTable
  interaction_daily_tools: InteractionDailyToolsTable
  interaction_user_daily_tools: InteractionUserDailyToolsTable
  interaction_daily_durations: InteractionDailyDurationsTable
  interaction_title_daily_durations: InteractionTitleDailyDurationsTable
  interaction_user_daily_durations: InteractionUserDailyDurationsTable
  interaction_monthly_durations: InteractionMonthlyDurationsTable
  interaction_daily_kinds: InteractionDailyKindsTable
  interaction_monthly_tools: InteractionMonthlyToolsTable
  interaction_daily_active: InteractionDailyActiveTable
  interaction_user_monthly_durations: InteractionUserMonthlyDurationsTable
  interaction_user_monthly_tools: InteractionUserMonthlyToolsTable
  interaction_user_tools: InteractionUserToolsTable
  interaction_user_durations: InteractionUserDurationsTable
  interaction_rollup_watermark: InteractionRollupWatermarkTable
  interaction_daily_usage_by_month: InteractionDailyUsageByMonthTable
  interaction_user_daily_usage_by_month: InteractionUserDailyUsageByMonthTable
}
