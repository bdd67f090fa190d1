// The two actions a GPT calls with its key: apps_list (its instructions and every action it may run) and
// app_execute_action (one of them, through the agent toolbox's run step with the organisation's shared credentials,
// recorded with the GPT's name as client_source). A refusal the HTTP API would answer with a status keeps that status;
// a call that ran and failed at the API (an error status, unreachable, a time-out) or in the tool answers 200 with
// `ok: false` and the readable error, as MCP answers a tool error, so the GPT reads what went wrong.
import type { Static } from '@sinclair/typebox'
import { badRequest, conflict, type DomainError, forbidden, invalidInput, notFound, paymentRequired, tooLarge, type InputIssue } from '../../platform/errors.ts'
import type { ToolError } from '../../platform/tools/tool.ts'
import type { Toolbox } from '../toolbox/index.ts'
import type { GptCaller } from './gpt-keys.ts'
import type { GptOfferings } from './offering.ts'
import type { ActionResult, ExecuteActionBody } from './schema.ts'

export type ActionAnswer = Static<typeof ActionResult>

/** A tool's refusal as the HTTP error the same refusal is elsewhere; null for failures of a call that ran. */
function refusal(error: ToolError): DomainError | null {
  switch (error.code) {
    case 'invalid_arguments':
      // Issues locate the arguments' problems (422 under body.arguments); without any it is a request that cannot work
      // as sent: an application whose calls use each user's own credentials, a missing credential, no server URL.
      return error.issues.length > 0
        ? invalidInput(...error.issues.map((issue): InputIssue => ({ ...issue, loc: ['arguments', ...issue.loc] })))
        : badRequest(error.message)
    case 'license_required':
      return paymentRequired(error.message)
    case 'forbidden':
      return forbidden(error.message)
    case 'not_found':
      return notFound(error.message)
    case 'conflict':
      return conflict(error.message)
    case 'too_large':
      return tooLarge(error.message)
    default:
      return null
  }
}

export class GptActions {
  readonly #toolbox: Toolbox
  readonly #offerings: GptOfferings

  constructor(toolbox: Toolbox, offerings: GptOfferings) {
    this.#toolbox = toolbox
    this.#offerings = offerings
  }

  /** `{instructions, operations_list, execute_action}` as JSON text. */
  async appsList(caller: GptCaller): Promise<string> {
    return (await this.#offerings.of(caller)).appsListJson()
  }

  async execute(caller: GptCaller, body: Static<typeof ExecuteActionBody>): Promise<ActionAnswer> {
    const { set, toolName } = await this.#offerings.resolve(caller, body.api_name, body.operation_id)
    const run = await this.#toolbox.run(caller.principal, set, { name: toolName, arguments: body.arguments ?? {}, clientSource: caller.name })
    const interactionId = await run.recorded
    if (run.outcome.ok) return { ok: true, result: run.outcome.content, interaction_id: interactionId }
    const refused = refusal(run.outcome.error)
    if (refused) throw refused
    return { ok: false, error: run.text, interaction_id: interactionId }
  }
}
