// The interaction store: one row per MCP tool call or API action, recorded for the user who made it (docs/api.md
// "Interactions"). Every row is masked on its way in (platform/secret-masking.ts), whoever recorded it.
import type { Kysely } from 'kysely'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { InteractionKind, InteractionsTable } from '../../platform/db/tables/interactions.ts'
import { newId } from '../../platform/ids.ts'
import { maskedRecord } from '../../platform/secret-masking.ts'
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
  /** The exact credential values the call used: masked wherever they appear in the row, besides the secret-key rule. */
  secrets?: readonly string[]
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
   *
   * Secrets never reach the row: values under secret-looking keys are masked at any depth of the arguments and the
   * result, and so are the call's credentials and the values it passed under such keys, wherever they appear (an
   * upstream that echoes the request).
   */
  async record(userId: string, interaction: NewInteraction): Promise<{ id: string }> {
    const masked = maskedRecord(interaction, interaction.secrets)
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
      user_input: masked.userInput,
      arguments: masked.arguments,
      result: masked.result,
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
