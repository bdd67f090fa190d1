// /api/mcp-servers: external MCP servers (admins register them; members see them and connect) and the OAuth callback
// the browser comes back to (docs/api.md "External MCP servers").
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import type { PublicOrigin } from '../../platform/http/public-origin.ts'
import { CALLBACK_PATH, type McpServerAuthorization } from './authorization.ts'
import type { ExternalServers } from './external-servers.ts'
import { ConnectAnswer, ConnectionBody, CreateMcpServerBody, McpServer, McpServerParams, McpServerTools, UpdateMcpServerBody } from './schema.ts'
import type { McpServersService } from './service.ts'
import { gatewayToolNames } from './tool-names.ts'
import { badGateway, badRequest } from '../../platform/errors.ts'

/** The cookie that ties a sign-in to the browser that started it (a random value; its hash is kept with the state). */
export const BROWSER_COOKIE = 'agentbox_mcp_signin'
const COOKIE_PATH = '/api/mcp-servers'
/** Where the callback sends the browser: the console's page, with a notice. */
const CONSOLE_PAGE = '/mcp-servers'

function readCookie(header: string | null, name: string): string | null {
  for (const part of header?.split(';') ?? []) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null
  }
  return null
}

/** Lax, not Strict: the browser comes back from the authorization server's site with a top-level GET, which Lax allows. */
const browserCookie = (value: string, secure: boolean) =>
  [`${BROWSER_COOKIE}=${value}`, `Path=${COOKIE_PATH}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${10 * 60}`, ...(secure ? ['Secure'] : [])].join('; ')

export interface McpServerRouteDependencies {
  readonly service: McpServersService
  readonly authorization: McpServerAuthorization
  readonly external: ExternalServers
  readonly origin: PublicOrigin
}

export function mcpServerRoutes(guard: AuthGuard, deps: McpServerRouteDependencies) {
  const { service, authorization, external } = deps
  const tags = ['mcp servers']
  const notOauth = { 400: { description: 'The server does not use this way of connecting (bearer, oauth or none)' } }
  return (
    new Elysia({ name: 'mcp-servers-routes' })
      .use(guard)
      .get('/api/mcp-servers', ({ principal }) => service.list(principal), {
        auth: 'member',
        response: { 200: t.Array(McpServer) },
        detail: { tags, summary: 'List the external MCP servers, each with whether the caller is connected (by name)' },
      })
      .post(
        '/api/mcp-servers',
        async ({ principal, body, set }) => {
          set.status = 201
          return service.create(principal, body)
        },
        {
          auth: 'admin',
          body: CreateMcpServerBody,
          response: { 201: McpServer },
          detail: {
            tags,
            summary: 'Register an external MCP server (admins)',
            description:
              'The URL is checked by the outbound rules when saved (a loopback, private or link-local address is a 422 unless allowed) and again at every connection.',
            responses: { 409: { description: 'A server of that name exists' } },
          },
        },
      )
      .get('/api/mcp-servers/:name', ({ principal, params }) => service.get(principal, params.name), {
        auth: 'member',
        params: McpServerParams,
        response: { 200: McpServer },
        detail: { tags, summary: 'An external MCP server, with whether the caller is connected' },
      })
      .patch('/api/mcp-servers/:name', ({ principal, params, body }) => service.update(principal, params.name, body), {
        auth: 'admin',
        params: McpServerParams,
        body: UpdateMcpServerBody,
        response: { 200: McpServer },
        detail: {
          tags,
          summary: "Change a server's URL, kind of auth or OAuth client (admins)",
          description: 'A new URL, kind of auth or client id disconnects every user (their tokens were for the old one).',
        },
      })
      .delete(
        '/api/mcp-servers/:name',
        async ({ principal, params, set }) => {
          await service.delete(principal, params.name)
          set.status = 204
        },
        {
          auth: { role: 'admin', whenLicenseLapsed: 'allowed' },
          params: McpServerParams,
          response: { 204: t.Void({ description: "Deleted, with every user's token; no body" }) },
          detail: { tags, summary: "Delete an external MCP server and every user's connection to it (admins)" },
        },
      )
      .put('/api/mcp-servers/:name/connection', ({ principal, params, body }) => service.connectWithToken(principal, params.name, body.token), {
        auth: 'member',
        params: McpServerParams,
        body: ConnectionBody,
        response: { 200: McpServer },
        detail: {
          tags,
          summary: 'Connect with your bearer token (servers with auth bearer)',
          description: 'The token is sealed in the vault, yours only; it is never returned.',
          responses: notOauth,
        },
      })
      .delete(
        '/api/mcp-servers/:name/connection',
        async ({ principal, params, set }) => {
          await service.disconnect(principal, params.name)
          set.status = 204
        },
        {
          auth: { role: 'member', whenLicenseLapsed: 'allowed' },
          params: McpServerParams,
          response: { 204: t.Void({ description: 'Disconnected (also when you were not connected); no body' }) },
          detail: {
            tags,
            summary: 'Disconnect: forget your token for this server',
            description: 'An OAuth refresh token is also revoked at the authorization server when it has a revocation endpoint (RFC 7009).',
          },
        },
      )
      .post(
        '/api/mcp-servers/:name/connect',
        async ({ principal, params, request, set }) => {
          const origin = deps.origin(request)
          const started = await authorization.start(principal, params.name, { origin, browser: readCookie(request.headers.get('cookie'), BROWSER_COOKIE) })
          set.headers['set-cookie'] = browserCookie(started.browser, origin.startsWith('https:'))
          set.headers['cache-control'] = 'no-store'
          return { authorization_url: started.authorizationUrl }
        },
        {
          auth: 'member',
          params: McpServerParams,
          response: { 200: ConnectAnswer },
          detail: {
            tags,
            summary: 'Start signing in to an OAuth server: answers the authorization URL to open in this browser',
            description: `Discovers the server's authorization server, registers Agentbox there when needed, and answers its authorization URL (PKCE S256, a state valid 10 minutes, the resource indicator). The answer also sets a cookie (${BROWSER_COOKIE}) that the callback (${CALLBACK_PATH}) checks: finish the sign-in in the browser that called.`,
            responses: {
              ...notOauth,
              502: { description: 'Discovery or registration failed (the server cannot be reached, names no authorization server, refuses to register)' },
            },
          },
        },
      )
      .get(
        '/api/mcp-servers/:name/tools',
        async ({ principal, params }) => {
          const server = await service.server(params.name)
          const listing = await external.toolsOfServer(principal, server)
          if (!listing) throw badRequest(`You are not connected to MCP server '${server.name}'`)
          if (listing.problem !== null) throw badGateway(listing.problem)
          const names = gatewayToolNames(
            server.name,
            listing.tools.map((tool) => tool.name),
          )
          return {
            server: server.name,
            tools: listing.tools.map((tool, i) => ({ name: names[i]!, tool: tool.name, title: tool.title ?? null, description: tool.description ?? null })),
          }
        },
        {
          auth: 'member',
          params: McpServerParams,
          response: { 200: McpServerTools },
          detail: {
            tags,
            summary: "The server's tools as chat and the gateway offer them to you",
            description: 'Listed with your token (kept for a minute).',
            responses: { 400: { description: 'You are not connected' }, 502: { description: 'The server could not list its tools' } },
          },
        },
      )
      // A browser endpoint: the authorization server sends the browser here; the answer is a redirect to the console, so
      // it is described in docs/api.md, not in the JSON API's document.
      .get(
        CALLBACK_PATH,
        async ({ request }) => {
          const outcome = await authorization.finish(new URL(request.url).searchParams, readCookie(request.headers.get('cookie'), BROWSER_COOKIE))
          const notice = new URLSearchParams()
          if (outcome.server) notice.set(outcome.problem ? 'server' : 'connected', outcome.server)
          if (outcome.problem) notice.set('error', outcome.problem)
          return new Response(null, {
            status: 303,
            headers: { location: `${CONSOLE_PAGE}?${notice}`, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
          })
        },
        { detail: { hide: true } },
      )
  )
}
