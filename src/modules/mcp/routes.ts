// The MCP URLs: /agent/{name}/mcp (live), /agent/{name}/design/mcp (draft, owners), /app/{api_name}/mcp, and the
// gateway /mcp/gateway (the caller's external MCP servers).
// In order: a foreign Origin is refused (DNS rebinding), only POST is served, the bearer token is checked against this
// exact URL (an OAuth token is bound to one resource), the caller's tool set is found, and the SDK answers.
import { Elysia } from 'elysia'
import type { Authenticate, Principal } from '../../platform/auth/principal.ts'
import { HttpError } from '../../platform/http/http-error.ts'
import { requestContext } from '../../platform/http/request-context.ts'
import type { PublicOrigin } from '../../platform/http/public-origin.ts'
import type { McpEndpoint, McpService } from './service.ts'
import { serveMcp } from './transport.ts'

/** Resolves an OAuth access token issued for `resource`, or throws a 401 HttpError saying why. */
export type VerifyOauthToken = (token: string, resource: string) => Promise<Principal>

export interface McpRouteDependencies {
  readonly service: McpService
  readonly authenticate: Authenticate
  /** Tokens with this prefix go to `verifyOauthToken`; every other bearer is an access or API token. */
  readonly oauth?: { readonly prefix: string; readonly verify: VerifyOauthToken }
  /** The origin clients use (platform/http/public-origin.ts). */
  readonly origin: PublicOrigin
}

const MCP_TAGS = ['mcp']
/** The endpoints' paths: their bodies are JSON-RPC, read by the transport rather than the platform's JSON parser. */
export const MCP_PATH = /^\/(?:(?:agent\/[^/]+(?:\/design)?|app\/[^/]+)\/mcp|mcp\/gateway)\/?$/

const jsonRpcError = (status: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }, { status, headers: { 'cache-control': 'no-store', ...headers } })

function challenge(resource: URL, error?: string): string {
  const invalid = error ? `, error="invalid_token", error_description="${error.replace(/["\\]/g, '')}"` : ''
  // Where a client discovers how to sign in for this URL (RFC 9728, path-aware).
  return `Bearer resource_metadata="${resource.origin}/.well-known/oauth-protected-resource${resource.pathname}", scope="mcp"${invalid}`
}

const bearerOf = (header: string | null) => (header?.toLowerCase().startsWith('bearer ') ? header.slice(7).trim() : null)

/** The caller of an MCP request, or a 401 whose challenge points at this URL's protected-resource metadata. */
async function principalOf(request: Request, deps: McpRouteDependencies): Promise<Principal> {
  const header = request.headers.get('authorization')
  const token = bearerOf(header)
  // This endpoint as clients know it (AGENTBOX_PUBLIC_URL behind a proxy): what an OAuth token must have been issued for.
  const resource = new URL(new URL(request.url).pathname, deps.origin(request))
  try {
    if (deps.oauth && token?.startsWith(deps.oauth.prefix)) return await deps.oauth.verify(token, `${resource.origin}${resource.pathname}`)
    return await deps.authenticate(header, requestContext(request)?.startedAt)
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 401) throw error
    throw new HttpError(401, error.detail, { 'www-authenticate': challenge(resource, token ? error.message : undefined) })
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * The MCP transport's DNS-rebinding rule. MCP clients (apps, CLIs, hosted connectors) send no Origin; a browser does.
 * A page on another origin cannot send a bearer token here (these endpoints grant no CORS preflight), so the browser
 * request that still arrives is a rebinding page, whose Origin equals the Host it rebound to our address: equality
 * proves nothing. A browser Origin is accepted only for a loopback instance reached from its own origin.
 */
function refusedOrigin(request: Request): boolean {
  const origin = request.headers.get('origin')
  if (origin === null) return false
  const own = new URL(request.url)
  return origin !== own.origin || !LOOPBACK.has(own.hostname)
}

// JSON-RPC answers (the SDK's and ours) and the platform's `{detail}` errors (authentication, access) share some statuses.
const JSON_RPC = {
  type: 'object',
  description: 'A JSON-RPC 2.0 response: `result`, or `error` with its code (-32700 parse error, -32601 unknown method, -32602 unknown tool or bad params)',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    result: { type: 'object' },
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
  },
}
const ERROR_DETAIL = { $ref: '#/components/schemas/ErrorDetail' }
const json = (schema: object) => ({ 'application/json': { schema } })
const RESPONSES = {
  200: { description: 'The JSON-RPC response', content: json(JSON_RPC) },
  202: { description: 'A notification or response from the client was accepted' },
  400: { description: 'Not JSON, not JSON-RPC, or a modern request without its protocol `_meta`', content: json(JSON_RPC) },
  401: { description: 'No or bad bearer token; `WWW-Authenticate` names the protected-resource metadata' },
  403: {
    description: 'A browser `Origin` (JSON-RPC error), or a non-owner at the design endpoint (`{detail}`)',
    content: json({ oneOf: [JSON_RPC, ERROR_DETAIL] }),
  },
  404: {
    description: 'No such agent or application the caller may see (`{detail}`), or an unknown JSON-RPC method',
    content: json({ oneOf: [JSON_RPC, ERROR_DETAIL] }),
  },
  406: { description: '`Accept` lacks `application/json` and `text/event-stream`', content: json(JSON_RPC) },
  413: { description: 'The message is larger than 1 MiB', content: json({ oneOf: [JSON_RPC, ERROR_DETAIL] }) },
  415: { description: 'The body is not `application/json`', content: json(JSON_RPC) },
}

function describe(summary: string, description: string) {
  return {
    parse: 'none' as const,
    detail: { tags: MCP_TAGS, summary, description, security: [{ bearer: [] }], responses: RESPONSES },
  }
}

export function mcpRoutes(deps: McpRouteDependencies) {
  const serve = async (request: Request, endpoint: McpEndpoint): Promise<Response> => {
    if (refusedOrigin(request)) return jsonRpcError(403, 'Forbidden: MCP endpoints do not serve browser pages (Origin)')
    const principal = await principalOf(request, deps)
    const set = await deps.service.toolSet(principal, endpoint)
    // Who is calling, as ClientNames keys it (it keeps only a hash, and hashes only when a name is stored or looked up).
    const caller = `${principal.userId}|${request.headers.get('authorization') ?? ''}`
    return serveMcp(request, deps.service.exchange(principal, set, caller))
  }
  return new Elysia({ name: 'mcp' })
    .post('/agent/:name/mcp', ({ request, params }) => serve(request, { kind: 'agent', name: params.name, source: 'live' }), {
      ...describe(
        "An agent's MCP endpoint (live version)",
        'Streamable HTTP, stateless, JSON responses; protocol 2025-06-18, 2025-11-25 and 2026-07-28. Tools: run_workflow, resume_workflow, one per operation of the agent\'s applications (find_operations and call_operation above the organisation\'s mcp_operation_tool_limit), load_skill; resources: its skills. tools/list pages with nextCursor (1,000 tools a page). See docs/api.md "MCP endpoints".',
      ),
    })
    .post('/agent/:name/design/mcp', ({ request, params }) => serve(request, { kind: 'agent', name: params.name, source: 'draft' }), {
      ...describe("An agent's design MCP endpoint (draft, owners only)", 'Tools that read and change the draft, then publish it.'),
    })
    .post('/app/:api_name/mcp', ({ request, params }) => serve(request, { kind: 'app', apiName: params.api_name }), {
      ...describe(
        "An application's MCP endpoint",
        "For applications imported with create_mcp: one tool per operation (find_operations and call_operation above the organisation's mcp_operation_tool_limit), load_skill.",
      ),
    })
    .post('/mcp/gateway', ({ request }) => serve(request, { kind: 'gateway' }), {
      ...describe(
        'The MCP gateway: the tools of the external MCP servers you connected',
        'Each tool of each external MCP server the caller can use (servers without auth, and those they connected with a bearer token or OAuth) as <server>__<tool>, called with the caller\'s own token for that server. Same transport, sign-in and recording as the agent endpoints. See docs/api.md "External MCP servers".',
      ),
    })
  // GET (a server-sent stream) and DELETE (end a session) get the platform's 405 with `Allow: POST`: stateless, there is
  // no session to open or close.
}
