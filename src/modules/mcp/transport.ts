// Streamable HTTP for both protocol eras on one URL, stateless, with the official SDK (@modelcontextprotocol/server 2.x):
// 2026-07-28 requests go to createMcpHandler (which checks the per-request envelope and headers), 2025-era requests to a
// per-request WebStandardStreamableHTTPServerTransport answering JSON. Each request gets a low-level Server whose
// handlers read the tool set the agent toolbox already built for this caller and version, so no schema is compiled per
// request. tools/list pages at 1,000 tools with an opaque cursor.
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import { DomainError } from '../../platform/errors.ts'
import { VERSION } from '../../version.ts'
import type { ToolSet } from '../toolbox/index.ts'

/** What the tools/call handler needs besides the tool set: who calls, from which client, and how a call runs. */
export interface McpExchange {
  readonly set: ToolSet
  /** The client's `clientInfo` as this request carries it (modern era) or as the caller's initialize said (legacy). */
  clientName(fromEnvelope: string | undefined): Promise<string | undefined>
  /** Legacy initialize: the client's name, remembered (for every instance) for the caller's later stateless requests. */
  rememberClient(name: string): Promise<void>
  callTool(name: string, args: Record<string, unknown>, clientName: string | undefined): Promise<CallResult>
}

export interface CallResult {
  content: { type: 'text'; text: string }[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

/** The largest JSON-RPC message accepted: 1 MiB, the same limit as every other JSON body (config.ts, bodyLimit). */
export const MAX_MESSAGE_BYTES = 1024 * 1024

const exchanges = new WeakMap<Request, McpExchange>()

const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'

/** The most tools one tools/list answer carries; the rest follow with nextCursor. */
export const TOOLS_PAGE = 1000

/**
 * A cursor names where the next page starts: its index, and the tool found there, so that a set rebuilt between two
 * pages (a new version) resumes at the same tool or refuses the cursor rather than skipping or repeating silently.
 */
const cursorAt = (index: number, name: string) => Buffer.from(JSON.stringify([index, name])).toString('base64url')

function pageStart(set: ToolSet, cursor: string | undefined): number {
  if (cursor === undefined) return 0
  let index = -1
  let name: unknown
  try {
    ;[index, name] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [number, unknown]
  } catch {
    // not one of ours
  }
  const tools = set.tools
  if (typeof name === 'string') {
    if (Number.isInteger(index) && index >= 0 && tools[index]?.name === name) return index
    const moved = tools.findIndex((tool) => tool.name === name)
    if (moved >= 0) return moved
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: list the tools again from the start')
}

/** A resource as resources/list shows it. */
const listedResource = (resource: ToolSet['resources'][number]) => ({
  uri: resource.uri,
  name: resource.name,
  ...(resource.title && { title: resource.title }),
  ...(resource.description && { description: resource.description }),
  mimeType: resource.mimeType,
  ...(resource.meta && { _meta: resource.meta }),
})

function serverFor(exchange: McpExchange | undefined): Server {
  if (!exchange) throw new Error('MCP request without its exchange')
  const { set } = exchange
  // logging: the SDK's own logging/setLevel (clients set a level; no tool logs yet). Deprecated from 2026-07-28, still served.
  const capabilities = {
    tools: { listChanged: false },
    logging: {},
    ...(set.resources.length > 0 && { resources: { listChanged: false, subscribe: false } }),
  }
  // The low-level Server: tools come from data with JSON Schemas we publish as they are and check ourselves.
  const server = new Server({ name: set.name, title: set.title, version: VERSION }, { capabilities, instructions: set.instructions })
  server.setRequestHandler('tools/list', async (request) => {
    const described = set.described()
    const start = pageStart(set, request.params?.cursor)
    const end = start + TOOLS_PAGE
    const tools = start === 0 && described.length <= TOOLS_PAGE ? described : described.slice(start, end)
    return { tools: tools as never, ...(end < described.length && { nextCursor: cursorAt(end, set.tools[end]!.name) }) }
  })
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name
    if (!set.tool(name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`)
    const envelope = (ctx as { mcpReq?: { envelope?: Record<string, { name?: string } | undefined> } }).mcpReq?.envelope
    const result = await exchange.callTool(name, request.params.arguments ?? {}, await exchange.clientName(envelope?.[CLIENT_INFO]?.name))
    return result as never
  })
  if (set.resources.length > 0) {
    server.setRequestHandler('resources/list', async () => ({ resources: set.resources.map(listedResource) as never }))
    server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }))
    server.setRequestHandler('resources/read', async (request) => {
      const resource = set.resource(request.params.uri)
      if (!resource) throw new ResourceNotFoundError(request.params.uri)
      // A resource removed after the set was built (a deleted template) is as unknown as one never listed.
      const body = await resource.read().catch((error: unknown) => {
        throw error instanceof DomainError && error.kind === 'not_found' ? new ResourceNotFoundError(request.params.uri) : error
      })
      return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, ...body, ...(resource.meta && { _meta: resource.meta }) }] }
    })
  }
  return server
}

const modern = createMcpHandler(({ requestInfo }) => serverFor(requestInfo && exchanges.get(requestInfo)), {
  legacy: 'reject',
  // 'auto' answers JSON unless a tool streams progress first (none does yet); 'json' would also print a warning at boot.
  maxRequestBodySize: MAX_MESSAGE_BYTES,
})

const jsonRpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status, headers: { 'cache-control': 'no-store' } })

/** A legacy initialize's `clientInfo.name`: stateless legacy requests after it do not carry it again. */
function initializingClient(body: unknown): string | undefined {
  const message = body as { method?: unknown; params?: { clientInfo?: { name?: unknown } } } | null
  const name = message?.method === 'initialize' ? message.params?.clientInfo?.name : undefined
  return typeof name === 'string' && name.length > 0 ? name.slice(0, 200) : undefined
}

/** Serves one POST to an MCP endpoint whose caller is already authenticated and authorised. */
export async function serveMcp(request: Request, exchange: McpExchange): Promise<Response> {
  const declared = Number(request.headers.get('content-length') ?? 0)
  if (declared > MAX_MESSAGE_BYTES) return jsonRpcError(413, ProtocolErrorCode.InvalidRequest, 'The message is larger than 1 MiB')
  const text = await request.text()
  if (Buffer.byteLength(text) > MAX_MESSAGE_BYTES) return jsonRpcError(413, ProtocolErrorCode.InvalidRequest, 'The message is larger than 1 MiB')
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return jsonRpcError(400, ProtocolErrorCode.ParseError, 'Parse error: the body is not JSON')
  }
  exchanges.set(request, exchange)
  const clientName = initializingClient(body)
  if (clientName) await exchange.rememberClient(clientName)
  if (await isLegacyRequest(request, body, { maxRequestBodySize: MAX_MESSAGE_BYTES })) {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await serverFor(exchange).connect(transport)
    return transport.handleRequest(request, { parsedBody: body })
  }
  return modern.fetch(request, { parsedBody: body })
}
