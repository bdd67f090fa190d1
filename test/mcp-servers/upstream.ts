// The edge of the world for the external MCP server tests: a real MCP server on 127.0.0.1 built with the official SDK
// (@modelcontextprotocol/server: createMcpHandler serving both protocol eras, requireBearerAuth, the RFC 9728 metadata
// response) and, for OAuth, a small authorization server of our own on another port: RFC 8414 metadata, dynamic client
// registration (RFC 7591), authorization code with PKCE S256 and the RFC 8707 resource, refresh with rotation, and
// revocation. The "user" who signs in at the authorization server is whoever the test says (`signIn`); every token
// names that account, and the `whoami` tool answers it, so a test sees whose token reached the server.
import { createHash, randomBytes } from 'node:crypto'
import {
  type AuthInfo,
  type CallToolRequest,
  createMcpHandler,
  type ListToolsRequest,
  oauthMetadataResponse,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'

export interface UpstreamTool {
  name: string
  title?: string
  description: string
  inputSchema: Record<string, unknown>
  annotations?: Record<string, unknown>
  run(args: Record<string, unknown>, account: string): { content: { type: 'text'; text: string }[]; structuredContent?: unknown; isError?: boolean }
}

/** One tools/call the server received. */
export interface ReceivedCall {
  tool: string
  arguments: Record<string, unknown>
  account: string
}

export const DEFAULT_TOOLS: UpstreamTool[] = [
  {
    name: 'whoami',
    description: 'Who the token belongs to',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    run: (_args, account) => ({ content: [{ type: 'text', text: account }] }),
  },
  {
    name: 'add',
    title: 'Add two numbers',
    description: 'Adds a and b',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    run: (args) => {
      const sum = Number(args.a) + Number(args.b)
      return { content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum } }
    },
  },
  {
    name: 'fail',
    description: 'Always fails',
    inputSchema: { type: 'object', properties: {} },
    run: () => ({ content: [{ type: 'text', text: 'the upstream says no' }], isError: true }),
  },
  {
    name: 'search.issues/by label',
    description: 'A name that MCP allows but model APIs do not',
    inputSchema: { type: 'object', properties: { label: { type: 'string' } } },
    run: (args) => ({ content: [{ type: 'text', text: `issues labelled ${String(args.label)}` }] }),
  },
]

interface Client {
  redirect_uris: string[]
}
interface PendingCode {
  client_id: string
  redirect_uri: string
  challenge: string
  resource: string | undefined
  account: string
}
interface IssuedToken {
  account: string
  client_id: string
  resource: string | undefined
  expiresAt: number
  revoked: boolean
}

/** The authorization server: in memory, one process, for one test file. */
export class TestAuthorizationServer {
  readonly issuer: string
  readonly clients = new Map<string, Client>()
  readonly codes = new Map<string, PendingCode>()
  readonly access = new Map<string, IssuedToken>()
  readonly refresh = new Map<string, IssuedToken & { used: boolean; accessToken: string }>()
  /** Every token request's form, in order. */
  readonly tokenRequests: URLSearchParams[] = []
  /** Every authorization request's query, in order. */
  readonly authorizations: URLSearchParams[] = []
  registrations = 0
  /** Seconds an access token lives. */
  accessTtl = 3600
  #account = 'nobody'
  #deny = false
  #issued = 0
  readonly #listener: ReturnType<typeof Bun.serve>

  constructor(options: { registration?: boolean; issParameter?: boolean } = {}) {
    this.#listener = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => this.#handle(request, options) })
    this.issuer = `http://127.0.0.1:${this.#listener.port}`
  }

  /** The account the next authorization approves as (the person signing in at the authorization server). */
  signIn(account: string): void {
    this.#account = account
  }

  /** The next authorization is refused by the person (`error=access_denied`). */
  denyNext(): void {
    this.#deny = true
  }

  metadata(options: { registration?: boolean; issParameter?: boolean } = {}) {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      ...(options.registration !== false && { registration_endpoint: `${this.issuer}/register` }),
      revocation_endpoint: `${this.issuer}/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      ...(options.issParameter !== false && { authorization_response_iss_parameter_supported: true }),
    }
  }

  /** Revokes every refresh and access token of `account` (the person disconnected the app at the provider). */
  revokeAll(account: string): void {
    for (const token of [...this.access.values(), ...this.refresh.values()]) if (token.account === account) token.revoked = true
  }

  stop(): void {
    this.#listener.stop(true)
  }

  #token(prefix: string): string {
    return `${prefix}-${++this.#issued}-${randomBytes(6).toString('hex')}`
  }

  #issue(client_id: string, account: string, resource: string | undefined) {
    const accessToken = this.#token('at')
    const refreshToken = this.#token('rt')
    const expiresAt = Math.floor(Date.now() / 1000) + this.accessTtl
    this.access.set(accessToken, { account, client_id, resource, expiresAt, revoked: false })
    this.refresh.set(refreshToken, { account, client_id, resource, expiresAt: expiresAt + 86_400, revoked: false, used: false, accessToken })
    return Response.json(
      { access_token: accessToken, token_type: 'Bearer', expires_in: this.accessTtl, refresh_token: refreshToken },
      { headers: { 'cache-control': 'no-store' } },
    )
  }

  async #handle(request: Request, options: { registration?: boolean; issParameter?: boolean }): Promise<Response> {
    const url = new URL(request.url)
    const error = (status: number, code: string) => Response.json({ error: code }, { status })
    if (url.pathname === '/.well-known/oauth-authorization-server') return Response.json(this.metadata(options))
    if (url.pathname === '/register' && request.method === 'POST' && options.registration !== false) {
      const body = (await request.json()) as { redirect_uris?: string[] }
      if (!Array.isArray(body.redirect_uris) || body.redirect_uris.length === 0) return error(400, 'invalid_redirect_uri')
      const client_id = `client-${++this.registrations}`
      this.clients.set(client_id, { redirect_uris: body.redirect_uris })
      return Response.json({ ...body, client_id, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: 'none' }, { status: 201 })
    }
    if (url.pathname === '/authorize') {
      const q = url.searchParams
      this.authorizations.push(q)
      const client = this.clients.get(q.get('client_id') ?? '')
      const redirect = q.get('redirect_uri') ?? ''
      if (!client?.redirect_uris.includes(redirect)) return new Response('unknown client or redirect', { status: 400 })
      const back = new URL(redirect)
      if (q.get('state')) back.searchParams.set('state', q.get('state')!)
      back.searchParams.set('iss', this.issuer)
      if (this.#deny) {
        this.#deny = false
        back.searchParams.set('error', 'access_denied')
        return new Response(null, { status: 302, headers: { location: back.href } })
      }
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
        back.searchParams.set('error', 'invalid_request')
        return new Response(null, { status: 302, headers: { location: back.href } })
      }
      const code = this.#token('code')
      this.codes.set(code, {
        client_id: q.get('client_id')!,
        redirect_uri: redirect,
        challenge: q.get('code_challenge')!,
        resource: q.get('resource') ?? undefined,
        account: this.#account,
      })
      back.searchParams.set('code', code)
      return new Response(null, { status: 302, headers: { location: back.href } })
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      const form = new URLSearchParams(await request.text())
      this.tokenRequests.push(form)
      if (form.get('grant_type') === 'authorization_code') {
        const pending = this.codes.get(form.get('code') ?? '')
        this.codes.delete(form.get('code') ?? '')
        if (!pending || pending.client_id !== form.get('client_id') || pending.redirect_uri !== form.get('redirect_uri')) return error(400, 'invalid_grant')
        const verifier = form.get('code_verifier') ?? ''
        if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) return error(400, 'invalid_grant')
        if ((form.get('resource') ?? undefined) !== pending.resource) return error(400, 'invalid_target')
        return this.#issue(pending.client_id, pending.account, pending.resource)
      }
      if (form.get('grant_type') === 'refresh_token') {
        const token = this.refresh.get(form.get('refresh_token') ?? '')
        if (!token || token.revoked || token.used || token.client_id !== form.get('client_id')) return error(400, 'invalid_grant')
        if (form.has('resource') && form.get('resource') !== token.resource) return error(400, 'invalid_target')
        token.used = true
        const old = this.access.get(token.accessToken)
        if (old) old.revoked = true
        return this.#issue(token.client_id, token.account, token.resource)
      }
      return error(400, 'unsupported_grant_type')
    }
    if (url.pathname === '/revoke' && request.method === 'POST') {
      const form = new URLSearchParams(await request.text())
      const value = form.get('token') ?? ''
      const token = this.refresh.get(value) ?? this.access.get(value)
      if (token) token.revoked = true
      return new Response(null, { status: 200 })
    }
    return new Response('not found', { status: 404 })
  }
}

export interface UpstreamOptions {
  auth: 'none' | 'bearer' | 'oauth'
  /** bearer: the tokens the server accepts and whose they are. */
  bearerTokens?: Record<string, string>
  tools?: UpstreamTool[]
  /** oauth: the authorization server (one is made if not given). */
  authorizationServer?: TestAuthorizationServer
  /** Serve both eras (default), only the 2026-07-28 era (`reject`), or only the 2025 era as older servers do (`only`). */
  legacy?: 'stateless' | 'reject' | 'only'
  /** Advertise the protected-resource metadata only at the well-known path (no resource_metadata in the 401). */
  challengeWithoutMetadata?: boolean
}

/** An MCP server on 127.0.0.1 with the SDK, and what it received. */
export class TestMcpServer {
  readonly url: string
  readonly as: TestAuthorizationServer | null
  readonly calls: ReceivedCall[] = []
  /** Every POST to the MCP URL: its Authorization header (null when none). */
  readonly requests: (string | null)[] = []
  tools: UpstreamTool[]
  readonly #listener: ReturnType<typeof Bun.serve>

  constructor(options: UpstreamOptions) {
    this.tools = options.tools ?? DEFAULT_TOOLS
    this.as = options.auth === 'oauth' ? (options.authorizationServer ?? new TestAuthorizationServer()) : null
    const modern = createMcpHandler(({ authInfo }) => this.#server(String(authInfo?.extra?.account ?? 'anonymous')), {
      legacy: options.legacy === 'reject' ? 'reject' : 'stateless',
    })
    const handler = {
      fetch: async (request: Request, extra: { authInfo?: AuthInfo } = {}): Promise<Response> => {
        if (options.legacy !== 'only') return modern.fetch(request, extra)
        // A 2025-era server, stateless: it knows nothing of server/discover, so a dual-era client falls back to initialize.
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
        await this.#server(String(extra.authInfo?.extra?.account ?? 'anonymous')).connect(transport)
        return transport.handleRequest(request, { authInfo: extra.authInfo })
      },
    }
    let gate: ((request: Request) => Promise<AuthInfo | Response>) | null = null
    let metadata: Parameters<typeof oauthMetadataResponse>[1] | null = null
    this.#listener = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (request) => {
        if (metadata && !options.challengeWithoutMetadata) {
          const document = oauthMetadataResponse(request, metadata)
          if (document) return document
        } else if (metadata && new URL(request.url).pathname === '/.well-known/oauth-protected-resource/mcp') {
          return oauthMetadataResponse(request, metadata) ?? new Response(null, { status: 404 })
        }
        if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 })
        this.requests.push(request.headers.get('authorization'))
        if (!gate) return handler.fetch(request)
        const auth = await gate(request)
        if (auth instanceof Response) {
          if (!options.challengeWithoutMetadata) return auth
          return new Response(auth.body, { status: auth.status, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } })
        }
        return handler.fetch(request, { authInfo: auth })
      },
    })
    const origin = `http://127.0.0.1:${this.#listener.port}`
    this.url = `${origin}/mcp`
    if (options.auth === 'none') return
    const resourceMetadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`
    if (options.auth === 'bearer') {
      const tokens = options.bearerTokens ?? {}
      gate = requireBearerAuth({
        resourceMetadataUrl,
        verifier: {
          verifyAccessToken: async (token) => {
            const account = tokens[token]
            if (!account) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown token')
            return { token, clientId: 'static', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600, extra: { account } }
          },
        },
      })
      return
    }
    const as = this.as!
    metadata = {
      oauthMetadata: as.metadata() as never,
      resourceServerUrl: new URL(this.url),
      scopesSupported: ['tools'],
      resourceName: 'Test MCP server',
      dangerouslyAllowInsecureIssuerUrl: true,
    }
    gate = requireBearerAuth({
      resourceMetadataUrl,
      expectedResource: new URL(this.url),
      verifier: {
        verifyAccessToken: async (token) => {
          const issued = as.access.get(token)
          if (!issued || issued.revoked) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown or revoked token')
          return {
            token,
            clientId: issued.client_id,
            scopes: [],
            expiresAt: issued.expiresAt,
            ...(issued.resource && { resource: new URL(issued.resource) }),
            extra: { account: issued.account },
          }
        },
      },
    })
  }

  /** tools/call requests received for `tool` (or all of them). */
  callsOf(tool?: string): ReceivedCall[] {
    return tool === undefined ? this.calls : this.calls.filter((call) => call.tool === tool)
  }

  stop(): void {
    this.#listener.stop(true)
    this.as?.stop()
  }

  #server(account: string): Server {
    const server = new Server({ name: 'test-upstream', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler('tools/list', async (_request: ListToolsRequest) => ({
      tools: this.tools.map(({ run: _run, ...tool }) => tool) as never,
    }))
    server.setRequestHandler('tools/call', async (request: CallToolRequest) => {
      const tool = this.tools.find((candidate) => candidate.name === request.params.name)
      const args = (request.params.arguments ?? {}) as Record<string, unknown>
      this.calls.push({ tool: request.params.name, arguments: args, account })
      if (!tool) return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true } as never
      return tool.run(args, account) as never
    })
    return server
  }
}
