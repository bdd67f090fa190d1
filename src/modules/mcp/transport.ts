// Streamable HTTP for both protocol eras on one URL, stateless, with the official SDK (@modelcontextprotocol/server 2.x):
// 2026-07-28 requests go to createMcpHandler (which checks the per-request envelope and headers), 2025-era requests to a
// per-request WebStandardStreamableHTTPServerTransport answering JSON. Each request gets a low-level Server whose
// handlers read the surface already built for this caller and version, so no schema is compiled per request.
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import { VERSION } from '../../version.ts'
import type { McpSurface } from './surface.ts'

/** What the tools/call handler needs besides the surface: who calls, from which client, and how a call runs. */
export interface McpExchange {
  readonly surface: McpSurface
  /** The client's `clientInfo` as this request carries it (modern era) or as the caller's initialize said (legacy). */
  clientName(fromEnvelope: string | undefined): string | undefined
  /** Legacy initialize: the client's name, remembered for the caller's later stateless requests. */
  rememberClient(name: string): void
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

function serverFor(exchange: McpExchange | undefined): Server {
  if (!exchange) throw new Error('MCP request without its exchange')
  const { surface } = exchange
  // logging: the SDK's own logging/setLevel (clients set a level; no tool logs yet). Deprecated from 2026-07-28, still served.
  const capabilities = {
    tools: { listChanged: false },
    logging: {},
    ...(surface.resources.size > 0 && { resources: { listChanged: false, subscribe: false } }),
  }
  // The low-level Server: tools come from data with JSON Schemas we publish as they are and check ourselves.
  const server = new Server({ name: surface.name, title: surface.title, version: VERSION }, { capabilities, instructions: surface.instructions })
  server.setRequestHandler('tools/list', async () => ({ tools: surface.listed as never }))
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name
    if (!surface.tools.has(name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`)
    const envelope = (ctx as { mcpReq?: { envelope?: Record<string, { name?: string } | undefined> } }).mcpReq?.envelope
    const result = await exchange.callTool(name, request.params.arguments ?? {}, exchange.clientName(envelope?.[CLIENT_INFO]?.name))
    return result as never
  })
  if (surface.resources.size > 0) {
    server.setRequestHandler('resources/list', async () => ({ resources: surface.listedResources as never }))
    server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }))
    server.setRequestHandler('resources/read', async (request) => {
      const resource = surface.resources.get(request.params.uri)
      if (!resource) throw new ResourceNotFoundError(request.params.uri)
      return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: resource.text, ...(resource.meta && { _meta: resource.meta }) }] }
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
  if (clientName) exchange.rememberClient(clientName)
  if (await isLegacyRequest(request, body, { maxRequestBodySize: MAX_MESSAGE_BYTES })) {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await serverFor(exchange).connect(transport)
    return transport.handleRequest(request, { parsedBody: body })
  }
  return modern.fetch(request, { parsedBody: body })
}
