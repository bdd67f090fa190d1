// /api/chat (docs/api.md "Chat"): a turn answered as Server-Sent Events (Accept: text/event-stream) or as one JSON
// document, the user's conversation starters, the models they may pick, and a resource of the chat's tools (the UI
// template an MCP Apps view is drawn from).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { toOpenApiSchema } from '../../platform/http/openapi-schema.ts'
import { requestContext } from '../../platform/http/request-context.ts'
import { APP_SANDBOX_PATH, sandboxResponse } from './app-sandbox.ts'
import { type ChatStreamEvent, SSE_KEEPALIVE, sseBytes } from './events.ts'
import { CHAT_EVENTS, ChatAnswer, ChatBody, ChatFailure, ChatModels, ResourceContents, ResourceQuery, Starter } from './schema.ts'
import type { ChatService, OpenTurn } from './service.ts'
import { messageEvent, type TurnResult } from './turn.ts'

/** A TypeBox schema as the published document shows it. */
const documented = (schema: unknown) => toOpenApiSchema(schema) as Record<string, unknown>

/** A quiet stream (a slow tool, a model thinking) still sends something this often, so no proxy closes it. */
const KEEPALIVE_MS = 15_000
const JSON_HEADERS = { 'content-type': 'application/json' }
export const SSE_HEADERS = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // nginx and friends pass each event on as it comes rather than buffering the answer.
  'x-accel-buffering': 'no',
})

const wantsStream = (request: Request) => (request.headers.get('accept') ?? '').includes('text/event-stream')

/** The events as they happen. A client that goes away (the stream is cancelled) interrupts the turn, which keeps what it produced. */
function streamed(turn: OpenTurn, requestSignal: AbortSignal): Response {
  const gone = new AbortController()
  let open = true
  let keepalive: ReturnType<typeof setInterval> | undefined
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (bytes: Uint8Array) => {
        if (!open) return
        try {
          controller.enqueue(bytes)
        } catch {
          open = false
        }
      }
      keepalive = setInterval(() => send(SSE_KEEPALIVE), KEEPALIVE_MS)
      const emit = (event: ChatStreamEvent) => send(sseBytes(event))
      void turn.run(emit, AbortSignal.any([gone.signal, requestSignal])).finally(() => {
        clearInterval(keepalive)
        if (!open) return
        open = false
        try {
          controller.close()
        } catch {
          // Cancelled meanwhile.
        }
      })
    },
    cancel() {
      open = false
      clearInterval(keepalive)
      gone.abort(new Error('the client went away'))
    },
  })
  return new Response(body, { headers: SSE_HEADERS })
}

function answer(result: TurnResult) {
  const { primary, comparison } = result
  const side = (outcome: NonNullable<TurnResult['comparison']>) => ({
    provider: outcome.ref.provider,
    model: outcome.ref.model,
    message: messageEvent(outcome),
    tool_calls: outcome.toolCalls,
    usage: outcome.usage,
    error: outcome.error?.detail ?? null,
  })
  return {
    thread_id: result.threadId,
    message: messageEvent(primary),
    tool_calls: primary.toolCalls,
    suggestions: result.suggestions ?? [],
    usage: result.usage,
    ...(comparison && { comparison: [side(primary), side(comparison)] }),
  }
}

/** The text/event-stream answer, with every event's data schema under `x-sse-events` (read by tests and clients). */
const eventStreamContent = {
  schema: {
    type: 'string' as const,
    description:
      'Server-Sent Events: `event: <name>` and `data: <JSON>` per event; delta, tool_call, tool_result, message, suggestions, then done (error when the turn failed). Comment lines keep a quiet stream open.',
  },
  'x-sse-events': Object.fromEntries(Object.entries(CHAT_EVENTS).map(([name, schema]) => [name, toOpenApiSchema(schema)])),
}

export function chatRoutes(guard: AuthGuard, chat: ChatService) {
  const tags = ['chat']
  return (
    new Elysia({ name: 'chat-routes' })
      .use(guard)
      .post(
        '/api/chat',
        async ({ principal, body, request }) => {
          const turn = await chat.open(principal, body)
          // A turn may take minutes (model calls and tools): the listening server's idle time-out would cut it.
          requestContext(request)?.allowLongRequest()
          if (wantsStream(request)) return streamed(turn, request.signal)
          const result = await turn.run(() => {}, request.signal)
          const failure = result.primary.error
          if (failure) {
            const detail = failure.status === 409 ? { detail: failure.detail } : { detail: failure.detail, thread_id: result.threadId }
            return new Response(JSON.stringify(detail), { status: failure.status, headers: JSON_HEADERS })
          }
          return new Response(JSON.stringify(answer(result)), { headers: JSON_HEADERS })
        },
        {
          // Like the MCP endpoints, chat keeps working once the licence has lapsed: the toolbox refuses the tools that
          // change things, and read-only tools still answer.
          auth: { role: 'member', whenLicenseLapsed: 'allowed' },
          body: ChatBody,
          response: { 200: ChatAnswer },
          detail: {
            tags,
            summary: 'One chat turn with the copilot, an agent (live, design or mock) and its tools',
            description:
              'Answers Server-Sent Events when `Accept` includes `text/event-stream` (failures after the start come as an `error` event, then `done`), else one JSON document. ' +
              'With `compare_with` the turn runs on both models side by side: tools may execute twice and tokens double.',
            responses: {
              200: {
                description: 'The turn: JSON, or the event stream',
                content: { 'application/json': { schema: documented(ChatAnswer) }, 'text/event-stream': eventStreamContent },
              },
              403: { description: 'mode design or version draft from someone who is not an owner of the agent' },
              404: { description: 'No such agent (or not one the caller may use), or no such thread of the caller' },
              409: { description: 'A turn is already running in this thread, or the thread was deleted during the turn' },
              502: {
                description: 'The model failed, answered with nothing, or sent a malformed tool call (JSON answers; the thread keeps what was produced)',
                content: { 'application/json': { schema: documented(ChatFailure) } },
              },
              504: {
                description: 'The model did not answer in time (JSON answers; the thread keeps what was produced)',
                content: { 'application/json': { schema: documented(ChatFailure) } },
              },
            },
          },
        },
      )
      .get('/api/chat/starters', ({ principal }) => chat.starters(principal), {
        auth: 'member',
        response: { 200: t.Array(Starter) },
        detail: { tags, summary: 'My conversation starters (settings), each with the message it sends' },
      })
      .get('/api/chat/models', () => chat.models(), {
        auth: 'member',
        response: { 200: ChatModels },
        detail: { tags, summary: 'The model providers configured on this server, and the default model' },
      })
      // The page MCP Apps views are drawn in (public: it holds nothing; the console hands it the template).
      .get(APP_SANDBOX_PATH, ({ query }) => sandboxResponse(query as Record<string, string | undefined>), { detail: { hide: true } })
      .get('/api/chat/resource', ({ principal, query }) => chat.resource(principal, query), {
        auth: 'member',
        query: ResourceQuery,
        response: { 200: ResourceContents },
        detail: {
          tags,
          summary: "Reads a resource of a chat's tools (a tool's UI template, a skill), as MCP resources/read answers it",
          responses: {
            403: { description: 'mode design or version draft from someone who is not an owner of the agent' },
            404: { description: 'No such agent the caller may use, or no such resource among the chat’s tools' },
          },
        },
      })
  )
}
