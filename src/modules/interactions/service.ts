// The interaction store: one row per MCP tool call or API action, recorded for the user who made it (docs/api.md "Interactions").
import type { Kysely } from 'kysely'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { InteractionKind, InteractionsTable } from '../../platform/db/tables/interactions.ts'
import { newId } from '../../platform/ids.ts'
import { GroupCommitInserts } from './group-commit.ts'

/** What any recorder supplies; the store adds id, user and time. */
export interface NewInteraction {
  kind: InteractionKind
  /** The application title (api_action) or the MCP server name (mcp_tool). */
  apiTitle: string
  /** The operation (api_action) or the tool name (mcp_tool). */
  action: string
  isError: boolean
  durationSeconds?: number
  conversationId?: string
  clientSource?: string
  userInput?: string
  arguments?: unknown
  result?: unknown
}

/** The spec's "MCP tool call record". */
export interface McpToolCall {
  tool_name: string
  mcp_server_name: string
  result?: unknown
  user_input?: string
  arguments?: Record<string, unknown>
  duration_seconds?: number
  conversation_id?: string
  client_source?: string
}

/** A failed MCP call says so as `{ isError: true, … }`; a bare content array, or anything else, is a success. */
export const isErrorResult = (result: unknown): boolean =>
  typeof result === 'object' && result !== null && !Array.isArray(result) && (result as { isError?: unknown }).isError === true

const jsonOrNull = (value: unknown) => (value === undefined ? null : JSON.stringify(value))

export class InteractionsService {
  readonly #clock: Clock
  readonly #inserts: GroupCommitInserts

  constructor(db: Kysely<Database>, clock: Clock) {
    this.#clock = clock
    this.#inserts = new GroupCommitInserts(db)
  }

  /**
   * Resolves once the row is committed. The rollup triggers run inside the same transaction, so the daily counts can
   * never disagree with the rows. API actions come through here too (kind api_action).
   */
  async record(userId: string, interaction: NewInteraction): Promise<{ id: string }> {
    const row: InteractionsTable = {
      id: newId(),
      user_id: userId,
      kind: interaction.kind,
      api_title: interaction.apiTitle,
      action: interaction.action,
      is_error: interaction.isError ? 1 : 0,
      duration_seconds: interaction.durationSeconds ?? null,
      conversation_id: interaction.conversationId ?? null,
      client_source: interaction.clientSource ?? null,
      user_input: interaction.userInput ?? null,
      arguments: jsonOrNull(interaction.arguments),
      result: jsonOrNull(interaction.result),
      created_at: isoTime(this.#clock.now()),
    }
    await this.#inserts.insert(row)
    return { id: row.id }
  }

  /** Resolves once every interaction recorded so far is committed (shutdown). */
  flush(): Promise<void> {
    return this.#inserts.flush()
  }

  recordMcpToolCall(userId: string, call: McpToolCall): Promise<{ id: string }> {
    return this.record(userId, {
      kind: 'mcp_tool',
      apiTitle: call.mcp_server_name,
      action: call.tool_name,
      isError: isErrorResult(call.result),
      durationSeconds: call.duration_seconds,
      conversationId: call.conversation_id,
      clientSource: call.client_source,
      userInput: call.user_input,
      arguments: call.arguments,
      result: call.result,
    })
  }
}
