// What a tool is, once for every transport: workflows, skills, API operations and the agent design tools produce tools;
// the agent toolbox (modules/toolbox) puts an agent's together and runs them for MCP, chat, the gateway and GPT apps.
// A tool validates its arguments against its own input schema, runs as the calling principal, and ends in a result or
// a ToolError that each transport words its own way (MCP: a result with isError; chat: a tool message).
import type { Static, TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Principal } from '../auth/principal.ts'
import { boundedIssues, boundedText } from '../bounded-errors.ts'
import { DomainError, type DomainErrorKind } from '../errors.ts'
import type { ValidationIssue } from '../http/http-error.ts'
import { firstErrors, toValidationIssues } from '../http/validation.ts'

/** MCP's tool annotations (hints for clients; never trusted for authorization). */
export interface ToolAnnotations {
  readonly title?: string
  readonly readOnlyHint?: boolean
  readonly destructiveHint?: boolean
  readonly idempotentHint?: boolean
  readonly openWorldHint?: boolean
}

export interface Tool<Input extends TObject = TObject> {
  /** 1–64 of [A-Za-z0-9_-]: what MCP clients and model APIs accept. */
  readonly name: string
  readonly title?: string
  readonly description: string
  /** A TypeBox object: checked before the handler runs, and published as the tool's JSON Schema. */
  readonly inputSchema: Input
  /**
   * A plain JSON Schema published instead of `inputSchema`, for tools whose schema comes from data (API operations);
   * their handler checks the arguments itself (an `invalid_input` DomainError located in the arguments).
   */
  readonly jsonSchema?: Readonly<Record<string, unknown>>
  readonly annotations?: ToolAnnotations
  /** Transport metadata (MCP `_meta`: UI templates for apps, output templates for GPT actions). */
  readonly meta?: Readonly<Record<string, unknown>>
  /** Runs as `principal` with checked arguments; returns JSON-able content or throws (see ToolError). */
  handler(principal: Principal, args: Static<Input>, context: ToolContext): Promise<unknown>
  /**
   * How the tool answers in mock mode, changing nothing (an operation's dry run). Without one, a read-only tool runs
   * as it is and any other answers a simulation (see `callTool`).
   */
  mock?(principal: Principal, args: Static<Input>, context: ToolContext): Promise<unknown>
  /**
   * A tool that stands for others (call_operation): given its checked arguments, the tool it names and that tool's
   * arguments, which are then checked, run and recorded as if that tool had been called. Throws a ToolError when it
   * names none.
   */
  delegate?(args: Static<Input>): { tool: Tool; arguments: Record<string, unknown> }
}

/** What a run gives a tool besides its arguments. */
export interface ToolContext {
  /** Values the call sent as credentials: the record of the call masks them wherever they appear (an echoed request). */
  useSecrets(values: readonly string[]): void
  /** The HTTP status an API answered the call with: kept in the call's record (the history shows it). */
  reportStatus(status: number): void
}

/** `live` runs tools; `mock` simulates them (see Tool.mock) and nothing is recorded. */
export type ToolMode = 'live' | 'mock'

export const NO_CONTEXT: ToolContext = Object.freeze({ useSecrets: () => {}, reportStatus: () => {} })

/** How a module offers tools: for one caller (descriptions may list what they can see) and one target. */
export type ToolProvider<Target> = (principal: Principal, target: Target) => Promise<Tool[]>

export type ToolErrorCode =
  | 'invalid_arguments'
  | 'not_authenticated'
  | 'license_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'rate_limited'
  | 'upstream_failed'
  | 'failed'

/** What a tool error's text may weigh: with its issues it stays well under an error body's 64 KiB. */
const TOOL_ERROR_CHARS = 16_000

/**
 * A failure a caller can act on: never a stack trace, never a secret. `issues` locate problems in the arguments.
 * Both are bounded here, whoever made the error: at most 50 issues (then one saying how many more) and a message of
 * at most 16,000 characters.
 */
export class ToolError extends Error {
  readonly issues: ValidationIssue[]

  constructor(
    readonly code: ToolErrorCode,
    message: string,
    issues: readonly ValidationIssue[] = [],
  ) {
    super(boundedText(message, TOOL_ERROR_CHARS))
    this.name = 'ToolError'
    this.issues = boundedIssues(issues)
  }
}

/** A tool error for `issues`, worded from the (already bounded) issues so the text never lists more than they do. */
function invalidArguments(code: ToolErrorCode, issues: readonly ValidationIssue[], fallback: string): ToolError {
  const bounded = boundedIssues(issues)
  return new ToolError(code, bounded.length > 0 ? bounded.map(describeIssue).join('; ') : fallback, bounded)
}

export type ToolOutcome = { readonly ok: true; readonly content: unknown } | { readonly ok: false; readonly error: ToolError }

const NAME = /^[A-Za-z0-9_-]{1,64}$/
export const isToolName = (name: string) => NAME.test(name)

const CODE_OF_KIND: Readonly<Record<DomainErrorKind, ToolErrorCode>> = {
  invalid_input: 'invalid_arguments',
  bad_request: 'invalid_arguments',
  payment_required: 'license_required',
  forbidden: 'forbidden',
  not_found: 'not_found',
  conflict: 'conflict',
  too_large: 'too_large',
  bad_gateway: 'upstream_failed',
  gateway_timeout: 'upstream_failed',
}

/** A service's error as the tool's: its issues are already located in the input, which is the tool's arguments. */
function fromDomainError(error: DomainError): ToolError {
  const issues = boundedIssues(error.issues).map(({ in: _where, ...issue }) => issue)
  return invalidArguments(CODE_OF_KIND[error.kind], issues, error.message)
}

const describeIssue = (issue: ValidationIssue) => (issue.loc.length > 0 ? `${issue.loc.join('.')}: ${issue.msg}` : issue.msg)

/**
 * The arguments' problems against the tool's TypeBox schema, located relative to the arguments (`x.y: …`), or null.
 * Tools with a published `jsonSchema` check their arguments themselves, with the same locations.
 */
export function checkArguments(tool: Tool, args: unknown): ToolError | null {
  if (tool.jsonSchema !== undefined || Value.Check(tool.inputSchema, args)) return null
  const { errors, complete } = firstErrors(Value.Errors(tool.inputSchema, args))
  const issues = toValidationIssues('arguments', errors, args, tool.inputSchema as never, complete).map((issue) => ({
    ...issue,
    loc: issue.loc.slice(1),
  }))
  return invalidArguments('invalid_arguments', issues, 'The arguments are not valid')
}

/** What a tool that has no mock answers in mock mode when it is not read-only: nothing ran, nothing changed. */
export const simulatedAnswer = (tool: Tool) => ({
  simulated: true,
  tool: tool.name,
  detail: 'Mock mode: this tool was not run and nothing was changed',
})

export interface CallOptions {
  readonly mode?: ToolMode
  readonly context?: ToolContext
}

/**
 * Checks the arguments, runs the tool (in mock mode: its mock, itself when read-only, else a simulated answer), and
 * turns every expected failure into a ToolError; anything else propagates.
 */
export async function callTool(tool: Tool, principal: Principal, args: unknown, options: CallOptions = {}): Promise<ToolOutcome> {
  const given = args ?? {}
  const invalid = checkArguments(tool, given)
  if (invalid) return { ok: false, error: invalid }
  const context = options.context ?? NO_CONTEXT
  const checked = given as Static<typeof tool.inputSchema>
  try {
    if (options.mode !== 'mock') return { ok: true, content: await tool.handler(principal, checked, context) }
    if (tool.mock) return { ok: true, content: await tool.mock(principal, checked, context) }
    if (tool.annotations?.readOnlyHint === true) return { ok: true, content: await tool.handler(principal, checked, context) }
    return { ok: true, content: simulatedAnswer(tool) }
  } catch (error) {
    if (error instanceof ToolError) return { ok: false, error }
    if (error instanceof DomainError) return { ok: false, error: fromDomainError(error) }
    throw error
  }
}

/** A tool's answer as text: JSON for content (a string as it is), the error's message for a failure. */
export function outcomeText(outcome: ToolOutcome): string {
  if (!outcome.ok) return outcome.error.message
  const { content } = outcome
  return typeof content === 'string' ? content : (JSON.stringify(content) ?? 'null')
}

/** What an MCP client or a model is shown of a tool: its name, description and input as JSON Schema. */
export function describeTool(tool: Tool): {
  name: string
  title?: string
  description: string
  inputSchema: Record<string, unknown>
  annotations?: ToolAnnotations
} {
  // TypeBox schemas are JSON Schema already; the clone drops TypeBox's symbol keys.
  const inputSchema = (tool.jsonSchema as Record<string, unknown> | undefined) ?? (JSON.parse(JSON.stringify(tool.inputSchema)) as Record<string, unknown>)
  return {
    name: tool.name,
    ...(tool.title && { title: tool.title }),
    description: tool.description,
    inputSchema,
    ...(tool.annotations && { annotations: tool.annotations }),
  }
}
