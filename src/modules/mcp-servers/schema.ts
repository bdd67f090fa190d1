// Request and response schemas of /api/mcp-servers (docs/api.md "External MCP servers").
import { t } from 'elysia'
import { DateTime, NullableDateTime } from '../../platform/http/schema-pieces.ts'

export const MAX_URL_LENGTH = 2048
const Auth = t.Union([t.Literal('none'), t.Literal('bearer'), t.Literal('oauth')], {
  description: 'none: no sign-in; bearer: each user pastes a token; oauth: each user signs in at the server (Agentbox is the OAuth client)',
})
const Url = t.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: "The server's MCP endpoint (Streamable HTTP), http or https" })
const ClientId = t.String({
  minLength: 1,
  maxLength: 512,
  description: 'A client id registered for Agentbox at the authorization server (else Agentbox registers itself)',
})
const ClientSecret = t.String({ minLength: 1, maxLength: 2048, description: "That client's secret, if it has one (sealed; never returned)" })

export const McpServerParams = t.Object({ name: t.String() })

export const CreateMcpServerBody = t.Object({
  name: t.String({
    minLength: 1,
    description: 'Agent-name rules: normalised to lowercase kebab-case, then at most 64 characters matching ^[a-z0-9]+(-[a-z0-9]+)*$',
  }),
  url: Url,
  auth: Auth,
  oauth_client_id: t.Optional(ClientId),
  oauth_client_secret: t.Optional(ClientSecret),
})

export const UpdateMcpServerBody = t.Object({
  url: t.Optional(Url),
  auth: t.Optional(Auth),
  oauth_client_id: t.Optional(t.Union([ClientId, t.Null()], { description: 'null: Agentbox registers itself (dynamic registration)' })),
  oauth_client_secret: t.Optional(t.Union([ClientSecret, t.Null()])),
})

export const McpServer = t.Object({
  name: t.String(),
  url: t.String(),
  auth: Auth,
  connected: t.Boolean({ description: 'The caller can use the server now (always true for auth none)' }),
  reason: t.Union([t.String(), t.Null()], { description: 'Why a connection of the caller stopped working (connect again), else null' }),
  connected_at: NullableDateTime,
  oauth_client_id: t.Union([t.String(), t.Null()], { description: 'OAuth servers: the client id Agentbox uses, once known' }),
  oauth_client_source: t.Union([t.Literal('admin'), t.Literal('registered'), t.Null()], {
    description: 'admin: set by an admin; registered: obtained by dynamic client registration (RFC 7591)',
  }),
  created_at: DateTime,
  updated_at: DateTime,
})

export const ConnectionBody = t.Object({ token: t.String({ minLength: 1, maxLength: 8192, description: 'Your bearer token for this server' }) })

export const ConnectAnswer = t.Object({
  authorization_url: t.String({ description: "Open it in the browser that called: it signs you in at the server's authorization server" }),
})

export const McpServerTool = t.Object({
  name: t.String({ description: 'The name chat and the gateway use: <server>__<tool>, at most 64 characters of [A-Za-z0-9_-]' }),
  tool: t.String({ description: "The tool's name at the server" }),
  title: t.Union([t.String(), t.Null()]),
  description: t.Union([t.String(), t.Null()]),
})

export const McpServerTools = t.Object({
  server: t.String(),
  tools: t.Array(McpServerTool),
})
