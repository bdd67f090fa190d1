// The copilot: a turn's request checked and resolved (the thread, the agent's tool set from the toolbox for the
// caller's rights, the external servers' tools, the models, the user's settings), its user message saved, then run
// (turn.ts) while the service keeps track of it, so shutdown can interrupt it cleanly and tests can wait for it.
import type { Static } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { LlmProviderName } from '../../config.ts'
import type { ModelProviders } from '../../llm/registry.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Lease, Leases } from '../../platform/cluster/index.ts'
import type { Database } from '../../platform/db/schema.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { conflict, type InputIssue, invalidInput, notFound } from '../../platform/errors.ts'
import { errorFields, type Logger } from '../../platform/log.ts'
import type { ToolMode } from '../../platform/tools/tool.ts'
import { authorizeAgent, OWNERS_ONLY_DESIGN, readDraft } from '../agents/index.ts'
import { THREAD_NOT_FOUND, type ThreadsService, type ThreadSummaryRecord } from '../threads/index.ts'
import type { Toolbox, ToolSet } from '../toolbox/index.ts'
import { ChatTools, inMode } from './chat-tools.ts'
import type { Emit } from './events.ts'
import { type ChatSettings, systemPrompt } from './instructions.ts'
import type { ModelSide } from './model-loop.ts'
import type { ChatBody, ResourceQuery } from './schema.ts'
import { failedTurn, runTurn, type TurnPlan, type TurnResult } from './turn.ts'

export type ChatRequest = Static<typeof ChatBody>
export type ChatResourceQuery = Static<typeof ResourceQuery>

/**
 * The tools of the caller's external MCP servers (another module: the servers an admin registered, with the caller's
 * own connection), named `<server>__<tool>`, as one ToolSet made by the toolbox's rules (its calls run and are recorded
 * through `toolbox.run`; in mock mode they are simulated and not recorded), or null when the caller has none.
 */
export type ExternalTools = (principal: Principal, mode: ToolMode) => Promise<ToolSet | null>

export interface ChatServiceDependencies {
  readonly db: Kysely<Database>
  readonly logger: Logger
  readonly toolbox: Toolbox
  readonly threads: ThreadsService
  /** The caller's effective settings (the settings module's service). */
  readonly settings: { get(userId: string): Promise<ChatSettings> }
  readonly providers: ModelProviders
  /** A thread's turn holds its lease (`chat_turn:<thread id>`) while it runs, on whichever instance runs it. */
  readonly leases: Pick<Leases, 'tryTake'>
  /** Where external MCP servers' tools come from; none until the module that serves them plugs in. */
  readonly externalTools?: ExternalTools | null
}

/** How much of a thread a turn sends the model: the latest messages (a thread's start is never a lone tool result). */
export const HISTORY_LIMIT = 50
const TITLE_CHARS = 80
export const TURN_IN_PROGRESS = 'A turn is already in progress in this thread: wait for it to finish'
export const RESOURCE_NOT_FOUND = 'Resource not found'

const turnLease = (threadId: string) => `chat_turn:${threadId}`

/** A turn whose user message is saved: run it once. */
export interface OpenTurn {
  readonly threadId: string
  run(emit: Emit, signal?: AbortSignal): Promise<TurnResult>
}

interface Resolved {
  readonly mode: 'live' | 'design' | 'mock'
  readonly version: 'live' | 'draft'
  readonly agent: string | null
  readonly agentSet: ToolSet | null
  readonly externalSet: ToolSet | null
}

const toolModeOf = (mode: Resolved['mode']): ToolMode => (mode === 'mock' ? 'mock' : 'live')

function titleOf(message: string): string {
  const line = message.trim().split('\n')[0]!.trim()
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line
}

export class ChatService {
  readonly #deps: ChatServiceDependencies
  #externalTools: ExternalTools | null
  readonly #running = new Set<Promise<unknown>>()
  readonly #shutdown = new AbortController()

  constructor(deps: ChatServiceDependencies) {
    this.#deps = deps
    this.#externalTools = deps.externalTools ?? null
  }

  /**
   * Plugs in where external MCP servers' tools come from (or unplugs with null): the module that serves them may be
   * made after chat, and tests plug a source of their own.
   */
  plugExternalTools(source: ExternalTools | null): void {
    this.#externalTools = source
  }

  /** The models a user may pick: every configured provider, with the model used when only the provider is named. */
  models() {
    const { providers } = this.#deps
    return {
      default: providers.default,
      providers: providers.configuredNames().map((provider) => ({ provider, default_model: providers.defaultModelFor(provider) })),
    }
  }

  /** The caller's conversation starters, each with the message the console sends when it is picked. */
  async starters(principal: Principal) {
    const settings = await this.#deps.settings.get(principal.userId)
    return settings.conversation_starters.map((starter) => ({
      name: starter.name,
      prompt: starter.action?.find((action) => action.user_input)?.user_input ?? starter.name,
      action: starter.action ?? [],
    }))
  }

  /** A resource of the tools a chat with these settings offers (a tool's UI template, a skill): what resources/read answers. */
  async resource(principal: Principal, query: ChatResourceQuery) {
    const issues: InputIssue[] = []
    const { mode, version } = this.#modeAndVersion(query, issues, 'query')
    if (issues.length > 0) throw invalidInput(...issues)
    const toolMode = toolModeOf(mode)
    const agentSet = query.agent_name ? await this.#deps.toolbox.forAgent(principal, query.agent_name, { version, mode: toolMode }) : null
    const externalSet = await this.#external(principal, toolMode)
    const found = agentSet?.resource(query.uri) ?? externalSet?.resource(query.uri)
    if (!found) throw notFound(RESOURCE_NOT_FOUND)
    const body = await found.read()
    return { contents: [{ uri: found.uri, mimeType: found.mimeType, ...body, ...(found.meta && { _meta: { ...found.meta } }) }] }
  }

  /**
   * Checks and resolves a turn, then saves its user message (creating the thread when none is named): every refusal
   * (422 fields, 404 thread or agent, 403 design, 409 busy thread) happens here, before anything streams.
   */
  async open(principal: Principal, body: ChatRequest): Promise<OpenTurn> {
    const issues: InputIssue[] = []
    const { mode, version } = this.#modeAndVersion(body, issues, 'body')
    const settings = await this.#deps.settings.get(principal.userId)
    const preset = body.preset_id === undefined ? null : (settings.prompt_presets.find((p) => p.id === body.preset_id) ?? null)
    if (body.preset_id !== undefined && !preset)
      issues.push({ loc: ['preset_id'], msg: 'No prompt preset has this id in your settings', type: 'value_error', input: body.preset_id })
    const primary = this.#model(body.model, 'model', issues)
    const compare = body.compare_with ? this.#model(body.compare_with, 'compare_with', issues) : null
    if (primary && compare && primary.ref.provider === compare.ref.provider && primary.ref.model === compare.ref.model)
      issues.push({ loc: ['compare_with'], msg: 'Compare with another model than the one that answers', type: 'value_error', input: body.compare_with })
    if (issues.length > 0) throw invalidInput(...issues)

    const thread = body.thread_id === undefined ? null : await this.#ownThread(principal, body.thread_id)
    if (thread && body.agent_name !== undefined && body.agent_name !== thread.agent_name)
      throw invalidInput({
        loc: ['agent_name'],
        msg: thread.agent_name ? `This thread talks to the agent ${thread.agent_name}` : 'This thread talks to the copilot without an agent',
        type: 'value_error',
        input: body.agent_name,
      })
    const agent = thread ? thread.agent_name : (body.agent_name ?? preset?.agent_name ?? null)
    if (!agent && (mode === 'design' || version === 'draft'))
      throw invalidInput({ loc: ['agent_name'], msg: 'A design session needs an agent: name one', type: 'missing', input: body.agent_name })

    const toolMode = toolModeOf(mode)
    const agentSet = agent ? await this.#deps.toolbox.forAgent(principal, agent, { version, mode: toolMode }) : null
    const externalSet = await this.#external(principal, toolMode)
    const resolved: Resolved = { mode, version, agent, agentSet, externalSet }
    const system = systemPrompt({
      agent,
      agentInstructions: await this.#agentInstructions(principal, resolved),
      designNote: mode === 'design' ? (agentSet?.instructions ?? null) : null,
      mock: mode === 'mock',
      settings,
    })
    const prompt = preset?.prompt ? `${preset.prompt}\n\n${body.message}` : body.message

    const metadata: Record<string, unknown> = { mode, ...(mode === 'mock' && { version }), ...(preset && { preset_id: preset.id }) }
    if (compare) metadata.compare_with = compare.ref
    // One turn per thread at a time on every instance (a second would interleave its rounds with the first's): the
    // thread's lease, taken before the first write, so two requests for one thread cannot both pass.
    let lease: Lease | null = null
    if (thread) {
      lease = await this.#deps.leases.tryTake(turnLease(thread.id))
      if (!lease) throw conflict(TURN_IN_PROGRESS)
    }
    let plan: TurnPlan
    try {
      const threadId = await inTransaction(this.#deps.db, async (trx) => {
        const id = thread?.id ?? (await this.#deps.threads.create({ owner_id: principal.userId, agent_name: agent, title: titleOf(body.message) }, trx)).id
        // A new thread's lease is taken in the transaction that creates it: no one can name the thread before.
        lease ??= await this.#deps.leases.tryTake(turnLease(id), trx)
        if (!lease) throw conflict(TURN_IN_PROGRESS)
        await this.#deps.threads.append(id, [{ role: 'user', content: prompt, metadata }], trx)
        return id
      })
      plan = {
        principal,
        threadId,
        history: await this.#deps.threads.history(threadId, HISTORY_LIMIT),
        userInput: prompt,
        system,
        tools: new ChatTools(agentSet, externalSet),
        primary: primary!,
        compare,
        suggestions: settings.enable_follow_up_suggestions,
        language: settings.language,
      }
    } catch (error) {
      await lease?.release()
      throw error
    }
    const threadId = plan.threadId
    const held = lease!
    let ran = false
    return {
      threadId,
      run: (emit, signal) => {
        if (ran) throw new Error('A turn runs once')
        ran = true
        return this.#track(threadId, held, plan, emit, signal)
      },
    }
  }

  /** Resolves once no turn is running (tests, and shutdown after interrupting them). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running])
  }

  /** Shutdown: running turns are interrupted (a tool already running finishes), keep what they produced, then end. */
  async stop(): Promise<void> {
    this.#shutdown.abort()
    await this.idle()
  }

  async #track(threadId: string, lease: Lease, plan: TurnPlan, emit: Emit, signal: AbortSignal | undefined): Promise<TurnResult> {
    const aborted = signal ? AbortSignal.any([signal, this.#shutdown.signal]) : this.#shutdown.signal
    const running = runTurn(this.#deps, plan, emit, aborted)
      .catch((error: unknown) => {
        // Every expected failure is already an outcome; this is a bug, reported without its details and logged.
        this.#deps.logger.error('chat turn failed', { thread_id: threadId, ...errorFields(error) })
        return failedTurn(plan, emit)
      })
      .finally(async () => {
        await lease.release()
        this.#running.delete(running)
      })
    this.#running.add(running)
    return running
  }

  #modeAndVersion(input: { mode?: Resolved['mode']; version?: Resolved['version'] }, issues: InputIssue[], where: 'body' | 'query') {
    const mode = input.mode ?? 'live'
    const implied = mode === 'design' ? 'draft' : mode === 'live' ? 'live' : null
    if (implied && input.version !== undefined && input.version !== implied)
      issues.push({
        loc: ['version'],
        msg: `version applies to mode mock: mode ${mode} uses the ${implied === 'draft' ? 'draft' : 'live version'}`,
        type: 'value_error',
        input: input.version,
        in: where,
      })
    return { mode, version: implied ?? input.version ?? 'live' }
  }

  #model(choice: ChatRequest['model'], field: 'model' | 'compare_with', issues: InputIssue[]): ModelSide | null {
    const { providers } = this.#deps
    const provider = choice?.provider ?? providers.default.provider
    if (!providers.isConfigured(provider)) {
      issues.push({
        loc: [field, 'provider'],
        msg: `Model provider "${provider}" is not configured on this server; configured: ${providers.configuredNames().join(', ')}`,
        type: 'value_error',
        input: provider,
      })
      return null
    }
    const model = choice?.model ?? (choice ? providers.defaultModelFor(provider) : providers.default.model)
    if (!model) {
      issues.push({ loc: [field, 'model'], msg: `Name a model: the ${provider} provider has no default model on this server`, type: 'missing' })
      return null
    }
    return { ref: { provider, model }, provider: providers.get(provider as LlmProviderName)! }
  }

  /** The caller's own chat thread; anyone else's (an admin's reading right included) does not exist here. */
  async #ownThread(principal: Principal, id: string): Promise<ThreadSummaryRecord> {
    const thread = await this.#deps.threads.find(id)
    if (!thread || thread.owner_id !== principal.userId) throw notFound(THREAD_NOT_FOUND)
    if (thread.task_id !== null)
      throw invalidInput({ loc: ['thread_id'], msg: "This is a task's thread: chat in a thread of your own", type: 'value_error', input: id })
    return thread
  }

  /** The instructions of the version the turn uses: the live set carries its own; the draft's are read (owners only). */
  async #agentInstructions(principal: Principal, resolved: Resolved): Promise<string | null> {
    if (!resolved.agent || !resolved.agentSet) return null
    if (resolved.version === 'live') return resolved.agentSet.instructions ?? null
    const agent = await authorizeAgent(this.#deps.db, resolved.agent, principal, 'own', OWNERS_ONLY_DESIGN)
    return (await readDraft(this.#deps.db, agent.id))?.instructions || null
  }

  async #external(principal: Principal, mode: ToolMode): Promise<ToolSet | null> {
    if (!this.#externalTools) return null
    try {
      const set = await this.#externalTools(principal, mode)
      return set ? inMode(set, mode) : null
    } catch (error) {
      // One unreachable server must not take the chat down: its tools are left out of this turn.
      this.#deps.logger.warn('external tools left out of a chat turn', errorFields(error))
      return null
    }
  }
}
