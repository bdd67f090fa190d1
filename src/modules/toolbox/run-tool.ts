// The one step every tool call of every transport goes through: find the tool (and, for call_operation, the operation
// tool it names), check the licence, check the arguments, run or simulate it, map its failures to ToolErrors, and record
// one interaction with the caller's client, conversation and message (never in mock mode). Secrets are masked by the
// store on write, with the credentials the call reported.
import type { Principal } from '../../platform/auth/principal.ts'
import type { Logger } from '../../platform/log.ts'
import { recordedCall } from '../../platform/tools/call-record.ts'
import {
  callTool,
  checkArguments,
  outcomeText,
  ToolError,
  type Tool,
  type ToolContext,
  type ToolErrorCode,
  type ToolOutcome,
} from '../../platform/tools/tool.ts'
import type { OperationTool } from '../applications/index.ts'
import type { InteractionsService } from '../interactions/index.ts'
import type { ToolCall } from './toolbox.ts'
import type { ToolSet } from './tool-set.ts'

/** One call's answer. */
export interface ToolRun {
  readonly outcome: ToolOutcome
  /** The answer as text (JSON for content, the message for an error): what MCP's content and the record carry. */
  readonly text: string
  /** The recorded interaction's id once committed; null when nothing was recorded (mock mode, unknown tool, a failed write). Never rejects. */
  readonly recorded: Promise<string | null>
}

export interface RunDependencies {
  readonly interactions: InteractionsService
  readonly logger: Logger
  readonly licenseLapsed: () => boolean
}

const LICENSE_LAPSED = 'License expired: only read-only tools can be used until an admin applies a licence'
const FAILED = 'The tool failed unexpectedly; the server log has the details'
const NOTHING_RECORDED = Promise.resolve(null)
/** Failures that mean the call never reached the API (an unreachable API or a time-out is `upstream_failed`: it went out). */
const REFUSED_BEFORE_CALL = new Set<ToolErrorCode>(['invalid_arguments', 'not_authenticated', 'license_required', 'forbidden', 'not_found', 'too_large'])

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))
const isOperationTool = (tool: Tool): tool is OperationTool => 'operation' in tool

export async function runTool(deps: RunDependencies, principal: Principal, set: ToolSet, call: ToolCall): Promise<ToolRun> {
  const listed = set.tool(call.name)
  if (!listed) {
    const outcome: ToolOutcome = { ok: false, error: new ToolError('not_found', `Unknown tool: ${call.name}`) }
    return { outcome, text: outcomeText(outcome), recorded: NOTHING_RECORDED }
  }
  const started = performance.now()
  const secrets: string[] = []
  let status: number | undefined
  const context: ToolContext = { useSecrets: (values) => secrets.push(...values), reportStatus: (answered) => void (status = answered) }
  // What is recorded: the tool named and its arguments, or for call_operation the operation tool it ran and its own.
  let tool = listed
  let args = call.arguments
  let outcome: ToolOutcome
  try {
    const invalid = listed.delegate ? checkArguments(listed, args) : null
    if (invalid) throw invalid
    if (listed.delegate) ({ tool, arguments: args } = listed.delegate(args as never))
    if (deps.licenseLapsed() && tool.annotations?.readOnlyHint !== true) throw new ToolError('license_required', LICENSE_LAPSED)
    outcome = await callTool(tool, principal, args, { mode: set.mode, context })
  } catch (error) {
    if (error instanceof ToolError) outcome = { ok: false, error }
    else {
      deps.logger.error('tool failed', { tool: tool.name, server: set.name, error: errorText(error) })
      outcome = { ok: false, error: new ToolError('failed', FAILED) }
    }
  }
  const text = outcomeText(outcome)
  if (set.mode === 'mock') return { outcome, text, recorded: NOTHING_RECORDED }
  // An api_action set answers over HTTP (GPT apps): like POST …/execute, it records only calls that went out, not those
  // refused before (arguments, credentials, licence). MCP and chat record every call of a known tool.
  if (set.recordKind === 'api_action' && !outcome.ok && REFUSED_BEFORE_CALL.has(outcome.error.code)) return { outcome, text, recorded: NOTHING_RECORDED }

  const operation = set.recordKind === 'api_action' && isOperationTool(tool) ? tool.operation : null
  const record = recordedCall({
    kind: set.recordKind,
    apiTitle: operation ? operation.title : set.name,
    action: operation ? operation.operationId : tool.name,
    arguments: args,
    outcome,
    durationSeconds: (performance.now() - started) / 1000,
    origin: call,
    secrets,
    text,
    status,
  })
  // Not awaited by the caller: it asked for the tool, not for its record, which commits with the next group commit
  // (one event-loop turn later, or at shutdown's flush).
  const recorded = deps.interactions.record(principal.userId, record).then(
    (row) => row.id,
    (error: unknown) => {
      deps.logger.error('tool call not recorded', { tool: tool.name, server: set.name, error: errorText(error) })
      return null
    },
  )
  return { outcome, text, recorded }
}
