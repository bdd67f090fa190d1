// Agentbox as an MCP client of an external server: the official SDK client (@modelcontextprotocol/client) over the
// guarded outbound client (guardedFetch), so every request to the server is checked like any other call leaving the
// machine (address policy at every connection, pinned addresses, redirects re-checked, bounded bodies). One short
// connection per listing or call, both protocol eras (the client probes for 2026-07-28 and falls back to initialize),
// and failures become one UpstreamError with a sentence a person can act on: never a URL, a token or a stack.
import {
  Client,
  InsufficientScopeError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker'
import { OutboundError } from '../../platform/outbound/errors.ts'
import { guardedFetch } from '../../platform/outbound/fetch-adapter.ts'
import type { SafeStreamFetch } from '../../platform/outbound/stream-fetch.ts'
import { VERSION } from '../../version.ts'

/**
 * - `unauthorized`: the server refused the token (401): connect again.
 * - `not_allowed`: the outbound rules refuse the server's address.
 * - `unreachable`: the connection failed or broke off.
 * - `timeout`: no answer in time.
 * - `protocol`: the server answered, but not as an MCP server should (an HTTP error, not JSON-RPC, an error result).
 */
export type UpstreamErrorCode = 'unauthorized' | 'not_allowed' | 'unreachable' | 'timeout' | 'protocol'

export class UpstreamError extends Error {
  constructor(
    readonly code: UpstreamErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'UpstreamError'
  }
}

/** A tool as the server listed it, bounded: what the gateway and chat offer under `<server>__<name>`. */
export interface ListedTool {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema: Record<string, unknown>
  readonly annotations?: Record<string, unknown>
}

/** A content block of a tool's answer, as MCP defines them (text, image, audio, resource link, embedded resource). */
export type ContentBlock = { readonly type: string; readonly text?: string; readonly mimeType?: string; readonly [key: string]: unknown }

export interface CallAnswer {
  readonly content: readonly ContentBlock[]
  readonly structuredContent?: Record<string, unknown>
  readonly isError: boolean
}

/** Tools read from one server at most (a server listing more is cut, and says so in the log). */
export const MAX_TOOLS_PER_SERVER = 500
const MAX_DESCRIPTION = 4096
/** A tool's input schema as JSON, at most: bigger ones are refused (they would crowd a model's context anyway). */
const MAX_SCHEMA_BYTES = 64 * 1024
const MAX_NAME = 128

// A listing is waited for by a chat turn or a gateway request: a server that does not answer is given up on quickly.
const LIST_LIMITS = { headersTimeoutMs: 10_000, idleTimeoutMs: 10_000, totalTimeoutMs: 20_000, maxResponseBytes: 5 * 1024 * 1024 }
const CALL_LIMITS = { headersTimeoutMs: 120_000, idleTimeoutMs: 120_000, totalTimeoutMs: 300_000, maxResponseBytes: 5 * 1024 * 1024 }
const LIST_TIMEOUT_MS = 10_000
const CALL_TIMEOUT_MS = 120_000

function causes(error: unknown): unknown[] {
  const chain: unknown[] = []
  for (let current = error; current !== undefined && current !== null && chain.length < 8; current = (current as { cause?: unknown }).cause) chain.push(current)
  return chain
}

/** The failure as one of ours, from wherever it happened (our outbound client, the SDK's transport or protocol). */
export function upstreamError(error: unknown): UpstreamError {
  const chain = causes(error)
  const found = <T>(kind: abstract new (...args: never[]) => T): T | undefined => chain.find((item): item is T => item instanceof kind)
  if (found(UpstreamError)) return found(UpstreamError)!
  if (found(UnauthorizedError)) return new UpstreamError('unauthorized', 'The MCP server refused the token (HTTP 401): connect again')
  if (found(InsufficientScopeError)) return new UpstreamError('unauthorized', 'The MCP server asks for more permissions than were granted: connect again')
  const outbound = found(OutboundError)
  if (outbound) {
    if (outbound.code === 'destination_not_allowed') return new UpstreamError('not_allowed', 'Destination not allowed')
    if (outbound.code === 'timeout') return new UpstreamError('timeout', 'The MCP server did not answer in time')
    if (outbound.code === 'response_too_large') return new UpstreamError('protocol', 'The MCP server answered with more than 5 MiB')
    if (outbound.code === 'too_many_redirects') return new UpstreamError('protocol', 'The MCP server redirected too many times')
    return new UpstreamError('unreachable', 'The MCP server cannot be reached')
  }
  const http = found(SdkHttpError)
  if (http) {
    if (http.status === 401) return new UpstreamError('unauthorized', 'The MCP server refused the token (HTTP 401): connect again')
    return new UpstreamError('protocol', `The MCP server answered HTTP ${http.status}`)
  }
  const sdk = found(SdkError)
  if (sdk?.code === SdkErrorCode.RequestTimeout) return new UpstreamError('timeout', 'The MCP server did not answer in time')
  if (sdk?.code === SdkErrorCode.ConnectionClosed || sdk?.code === SdkErrorCode.SendFailed)
    return new UpstreamError('unreachable', 'The connection to the MCP server broke off')
  // A JSON-RPC error the server sent: its code only, since its message is the server's own words.
  const rpcCode = (error as { code?: unknown }).code
  if (typeof rpcCode === 'number') return new UpstreamError('protocol', `The MCP server answered with an error (JSON-RPC ${rpcCode})`)
  return new UpstreamError('protocol', 'The MCP server did not answer as an MCP server')
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A listed tool kept only when it is usable: a name, an object schema of reasonable size; texts cut to their bounds. */
function boundedTool(raw: unknown): ListedTool | null {
  if (!isObject(raw) || typeof raw.name !== 'string' || raw.name === '' || raw.name.length > MAX_NAME) return null
  const schema = isObject(raw.inputSchema) ? raw.inputSchema : { type: 'object' }
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) return null
  const description = typeof raw.description === 'string' ? raw.description.slice(0, MAX_DESCRIPTION) : undefined
  return {
    name: raw.name,
    ...(typeof raw.title === 'string' && raw.title !== '' && { title: raw.title.slice(0, 200) }),
    ...(description && { description }),
    inputSchema: schema.type === 'object' ? schema : { ...schema, type: 'object' },
    ...(isObject(raw.annotations) && { annotations: raw.annotations }),
  }
}

/** The SDK client against external servers, over the guarded outbound client. */
export class ExternalMcpClient {
  readonly #listFetch
  readonly #callFetch

  constructor(stream: SafeStreamFetch) {
    this.#listFetch = guardedFetch(stream, LIST_LIMITS)
    this.#callFetch = guardedFetch(stream, CALL_LIMITS)
  }

  /** The server's tools (every page, at most MAX_TOOLS_PER_SERVER), as `token` sees them. Throws UpstreamError. */
  async listTools(url: string, token: string | null): Promise<{ tools: ListedTool[]; cut: boolean }> {
    return this.#session(url, token, this.#listFetch, LIST_TIMEOUT_MS, async (client) => {
      const tools: ListedTool[] = []
      let cursor: string | undefined
      let cut = false
      for (let page = 0; page < 50; page++) {
        const answer = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: LIST_TIMEOUT_MS })
        for (const raw of answer.tools) {
          const tool = boundedTool(raw)
          if (tool) tools.push(tool)
        }
        cursor = answer.nextCursor
        if (cursor === undefined) break
        if (tools.length >= MAX_TOOLS_PER_SERVER) {
          cut = true
          break
        }
      }
      return { tools: tools.slice(0, MAX_TOOLS_PER_SERVER), cut: cut || tools.length > MAX_TOOLS_PER_SERVER }
    })
  }

  /** Calls one tool. An `isError` result is an answer, not an exception; everything else that fails is an UpstreamError. */
  async callTool(url: string, token: string | null, name: string, args: Record<string, unknown>): Promise<CallAnswer> {
    return this.#session(url, token, this.#callFetch, CALL_TIMEOUT_MS, async (client) => {
      const result = (await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS })) as Record<string, unknown>
      const content = Array.isArray(result.content) ? (result.content.filter(isObject) as ContentBlock[]) : []
      return {
        content,
        ...(isObject(result.structuredContent) && { structuredContent: result.structuredContent }),
        isError: result.isError === true,
      }
    })
  }

  async #session<T>(
    url: string,
    token: string | null,
    fetch: ReturnType<typeof guardedFetch>,
    timeout: number,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    const client = new Client(
      { name: 'agentbox', version: VERSION },
      { versionNegotiation: { mode: 'auto' }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    )
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      fetch,
      // No onUnauthorized: a 401 ends the call (UnauthorizedError); refreshing happens before, where tokens are kept.
      ...(token !== null && { authProvider: { token: async () => token } }),
      // Servers that ask for more scope get an error, not a browser flow started from a tool call.
      onInsufficientScope: 'throw',
    })
    try {
      await client.connect(transport, { timeout })
      return await work(client)
    } catch (error) {
      throw upstreamError(error)
    } finally {
      await client.close().catch(() => {})
    }
  }
}
