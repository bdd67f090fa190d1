// The interaction a tool or operation call leaves, built in one place for every transport: an MCP tools/call (mcp_tool),
// `POST …/execute` (api_action), and next chat and GPT apps. The same arguments and the same result shape whichever way
// the call came; the store masks secrets on write (platform/secret-masking.ts) with the credentials the call used.
import type { InteractionKind } from '../db/tables/interactions.ts'
import { maskText, secretValuesIn } from '../secret-masking.ts'
import { outcomeText, type ToolOutcome } from './tool.ts'

/** What an interaction keeps of a call's answer: enough to see what happened, never a whole API response. */
export const RECORDED_TEXT = 2000

/** Who asked, as the transport knows it. */
export interface CallOrigin {
  /** The client (MCP `clientInfo.name`, `agentbox-api`, `agentbox-copilot`, a GPT's name). */
  readonly clientSource?: string
  readonly conversationId?: string
  /** The user message that led to the call (chat). */
  readonly userInput?: string
}

/** An interaction as the store takes it (interactions' NewInteraction). */
export interface RecordedCall {
  readonly kind: InteractionKind
  /** The MCP server name (mcp_tool: agent or app) or the application title (api_action). */
  readonly apiTitle: string
  /** The tool name (mcp_tool) or the operation id (api_action). */
  readonly action: string
  readonly isError: boolean
  readonly durationSeconds: number
  readonly clientSource?: string
  readonly conversationId?: string
  readonly userInput?: string
  readonly arguments: Record<string, unknown>
  /**
   * `{isError, text, status?}`: the answer's text as the caller got it, cut at RECORDED_TEXT characters, and the HTTP
   * status of the API when the call reached one.
   */
  readonly result: { isError: boolean; text: string; status?: number }
  /** The exact credential values the call used: masked wherever they appear when the row is written. */
  readonly secrets: readonly string[]
}

export interface CallFacts {
  readonly kind: InteractionKind
  readonly apiTitle: string
  readonly action: string
  readonly arguments: Record<string, unknown>
  readonly outcome: ToolOutcome
  readonly durationSeconds: number
  readonly origin: CallOrigin
  readonly secrets: readonly string[]
  /** The outcome's text when the transport already made it (outcomeText). */
  readonly text?: string
  /** The HTTP status the API answered, when the call reached one. */
  readonly status?: number
}

/** Past the cut, how much text is masked with it: the longest secret plus room for a `name=value` pair. */
const MASK_MARGIN = 256

/**
 * The one record of one call. A text longer than the cut is masked before it is cut (with a margin past the cut), so
 * that a secret straddling the cut cannot leave a readable head behind; the store applies the whole rule on write.
 */
export function recordedCall(facts: CallFacts): RecordedCall {
  const isError = !facts.outcome.ok
  const full = facts.text ?? outcomeText(facts.outcome)
  let text = full
  if (full.length > RECORDED_TEXT) {
    const known = secretValuesIn(facts.arguments, new Set(facts.secrets))
    let longest = 0
    for (const secret of known) longest = Math.max(longest, secret.length)
    const margin = RECORDED_TEXT + longest + MASK_MARGIN
    text = maskText(full.length > margin ? full.slice(0, margin) : full, known)
  }
  return {
    kind: facts.kind,
    apiTitle: facts.apiTitle,
    action: facts.action,
    isError,
    durationSeconds: facts.durationSeconds,
    ...(facts.origin.clientSource !== undefined && { clientSource: facts.origin.clientSource }),
    ...(facts.origin.conversationId !== undefined && { conversationId: facts.origin.conversationId }),
    ...(facts.origin.userInput !== undefined && { userInput: facts.origin.userInput }),
    arguments: facts.arguments,
    result: {
      isError,
      text: text.length > RECORDED_TEXT ? `${text.slice(0, RECORDED_TEXT)}…` : text,
      ...(facts.status !== undefined && { status: facts.status }),
    },
    secrets: facts.secrets,
  }
}
