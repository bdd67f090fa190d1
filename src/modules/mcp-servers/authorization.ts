// Connecting a user to an OAuth-protected MCP server, with Agentbox as the OAuth client (the MCP authorization spec):
// discovery of the protected-resource metadata (RFC 9728: the 401's `resource_metadata`, else the well-known paths) and
// of the authorization server (RFC 8414 / OpenID Connect), the client (an id an admin registered, or ours by dynamic
// registration, RFC 7591, kept per server), PKCE S256, a `state` stored hashed in the database with the user it belongs
// to and the browser that asked (a cookie), and the RFC 8707 resource indicator. The callback exchanges the code and
// stores the tokens, sealed per user in the vault with what refreshing them takes. The SDK's auth helpers
// (@modelcontextprotocol/client) do the protocol steps; every request goes through the guarded outbound client.
//
// Steps of a connection:
// 1. start: probe the server without a token (a 401 names its metadata), discover, get a client, make the
//    authorization URL with a fresh state and PKCE pair; keep the state's hash and the sealed verifier for 10 minutes;
// 2. the browser signs in at the authorization server, which sends it back to the callback with a code and the state;
// 3. finish: take the pending authorization once (by the state's hash), check its browser and age, exchange the code
//    (checking the answer's `iss`), store the tokens and the connection.
import {
  AuthorizationServerMismatchError,
  checkResourceAllowed,
  discoverOAuthServerInfo,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  IssuerMismatchError,
  OAuthError,
  registerClient,
  resourceUrlFromServerUrl,
  selectClientAuthMethod,
  startAuthorization,
} from '@modelcontextprotocol/client'
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { badGateway, badRequest } from '../../platform/errors.ts'
import { randomToken, sha256Hex } from '../../platform/ids.ts'
import type { Logger } from '../../platform/log.ts'
import { guardedFetch } from '../../platform/outbound/fetch-adapter.ts'
import type { OutboundClient } from '../../platform/outbound/outbound-client.ts'
import { buildCredential, SecretBoxError, type SecretNamespace, type TokenEndpointAuthMethod } from '../../platform/secrets/index.ts'
import { upstreamError } from './mcp-client.ts'
import { clientSecret, pkceVerifier, userToken } from './secrets.ts'
import type { McpServersService } from './service.ts'
import { saveConnection, serverById, type ServerRow } from './store.ts'

export const CALLBACK_PATH = '/api/mcp-servers/oauth/callback'
/** How long a started sign-in may take. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000
/** Pending sign-ins kept per user and server (two tabs, a retry): older ones are dropped. */
const PENDING_PER_USER = 5
const DISCOVERY_LIMITS = { headersTimeoutMs: 15_000, idleTimeoutMs: 15_000, totalTimeoutMs: 30_000, maxResponseBytes: 256 * 1024 }

type AuthorizationServerMetadata = NonNullable<Awaited<ReturnType<typeof discoverOAuthServerInfo>>['authorizationServerMetadata']>

export interface AuthorizationStart {
  /** Where the browser goes: the authorization server's authorization endpoint with our parameters. */
  readonly authorizationUrl: string
  /** The value of the browser cookie that ties the sign-in to this browser (kept if the browser already had one). */
  readonly browser: string
}

/** How a callback ended: the server's name when known, and why it failed (null on success). */
export interface AuthorizationOutcome {
  readonly server: string | null
  readonly problem: string | null
}

export interface McpServerAuthorizationDependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly logger: Logger
  readonly secrets: SecretNamespace
  readonly outbound: OutboundClient
  readonly servers: McpServersService
}

const BROWSER_VALUE = /^[A-Za-z0-9_-]{32,64}$/

/** The probe: an initialize without a token, which a protected server answers 401 with its metadata's URL. */
const PROBE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agentbox', version: '1' } },
})

class Failed extends Error {}

export class McpServerAuthorization {
  readonly #deps: McpServerAuthorizationDependencies
  readonly #fetch

  constructor(deps: McpServerAuthorizationDependencies) {
    this.#deps = deps
    this.#fetch = guardedFetch(deps.outbound.stream, DISCOVERY_LIMITS)
  }

  /** Steps 1 of the header: 400 for a server that does not sign in with OAuth, 502 when discovery or registration fails. */
  async start(principal: Principal, name: string, request: { origin: string; browser: string | null }): Promise<AuthorizationStart> {
    const server = await this.#deps.servers.server(name)
    if (server.auth !== 'oauth')
      throw badRequest(
        server.auth === 'bearer'
          ? `MCP server '${server.name}' takes a bearer token: PUT /api/mcp-servers/${server.name}/connection`
          : `MCP server '${server.name}' needs no connection`,
      )
    const redirectUri = `${request.origin}${CALLBACK_PATH}`
    const discovered = await this.#discover(server)
    const client = await this.#client(server, discovered.metadata, discovered.authorizationServer, redirectUri, discovered.scope, request.origin, principal)
    const state = randomToken(32)
    const stateHash = sha256Hex(state)
    let started: Awaited<ReturnType<typeof startAuthorization>>
    try {
      started = await startAuthorization(discovered.authorizationServer, {
        metadata: discovered.metadata,
        clientInformation: client,
        redirectUrl: redirectUri,
        scope: discovered.scope,
        state,
        resource: discovered.resource,
      })
    } catch {
      throw badGateway(`The authorization server of MCP server '${server.name}' does not offer the authorization code flow with PKCE (S256)`)
    }
    const browser = request.browser !== null && BROWSER_VALUE.test(request.browser) ? request.browser : randomToken(32)
    const { db, clock, secrets } = this.#deps
    const now = clock.now()
    await inTransaction(db, async (trx) => {
      await this.#dropOldPending(trx, server.id, principal.userId)
      await trx
        .insertInto('mcp_server_authorizations')
        .values({
          state_hash: stateHash,
          server_id: server.id,
          user_id: principal.userId,
          browser_hash: sha256Hex(browser),
          redirect_uri: redirectUri,
          resource: discovered.resource,
          scope: discovered.scope ?? null,
          authorization_server: discovered.authorizationServer,
          metadata: JSON.stringify(discovered.metadata),
          client_id: client.client_id,
          created_at: isoTime(now),
          expires_at: isoTime(now + AUTHORIZATION_TTL_MS),
        })
        .execute()
      await secrets.put(trx, pkceVerifier(server.id, principal.userId, stateHash), buildCredential('bearer', { token: started.codeVerifier }), principal.userId)
    })
    return { authorizationUrl: started.authorizationUrl.href, browser }
  }

  /** Step 3: never throws for what the browser brought; the outcome says what happened. */
  async finish(query: URLSearchParams, browser: string | null): Promise<AuthorizationOutcome> {
    const state = query.get('state')
    if (!state) return { server: null, problem: 'The answer from the authorization server has no state: connect again' }
    const stateHash = sha256Hex(state)
    const { db, clock, secrets } = this.#deps
    const pending = await db.selectFrom('mcp_server_authorizations').selectAll().where('state_hash', '=', stateHash).executeTakeFirst()
    if (!pending) return { server: null, problem: 'This sign-in is unknown or was already used: connect again' }
    const server = await serverById(db, pending.server_id)
    const verifierRef = pkceVerifier(pending.server_id, pending.user_id, stateHash)
    let verifier: string | null = null
    try {
      const stored = await secrets.open(verifierRef)
      verifier = stored?.type === 'bearer' ? stored.token : null
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error
    }
    // Used once: whoever deletes the row goes on; a second callback with the same state finds nothing.
    const taken = await inTransaction(db, async (trx) => {
      const removed = await trx.deleteFrom('mcp_server_authorizations').where('state_hash', '=', stateHash).executeTakeFirst()
      await secrets.remove(trx, verifierRef)
      return removed.numDeletedRows > 0n
    })
    if (!taken) return { server: null, problem: 'This sign-in is unknown or was already used: connect again' }
    const name = server?.name ?? null
    try {
      if (!server) throw new Failed('The MCP server no longer exists')
      if (Date.parse(pending.expires_at) <= clock.now()) throw new Failed('The sign-in took longer than 10 minutes: connect again')
      if (browser === null || !BROWSER_VALUE.test(browser) || sha256Hex(browser) !== pending.browser_hash)
        throw new Failed('This sign-in was started in another browser: connect again from this one')
      const refused = query.get('error')
      if (refused !== null) throw new Failed(`The authorization server did not authorize Agentbox${errorCode(refused)}: connect again`)
      const code = query.get('code')
      if (!code) throw new Failed('The answer from the authorization server has no code: connect again')
      if (!verifier) throw new Failed('This sign-in can no longer be completed: connect again')
      const user = await db.selectFrom('users').select('active').where('id', '=', pending.user_id).executeTakeFirst()
      if (user?.active !== 1) throw new Failed('The account that started this sign-in is no longer active')
      await this.#exchange(server, pending, code, verifier, query.get('iss'))
      return { server: name, problem: null }
    } catch (error) {
      if (error instanceof Failed) return { server: name, problem: error.message }
      throw error
    }
  }

  /** Pending sign-ins past their 10 minutes, with their sealed verifiers (housekeeping). */
  async removeExpired(): Promise<number> {
    const { db, clock, secrets } = this.#deps
    const expired = await db
      .selectFrom('mcp_server_authorizations')
      .select(['state_hash', 'server_id', 'user_id'])
      .where('expires_at', '<=', isoTime(clock.now()))
      .limit(500)
      .execute()
    if (expired.length === 0) return 0
    await inTransaction(db, async (trx) => {
      for (const row of expired) {
        await trx.deleteFrom('mcp_server_authorizations').where('state_hash', '=', row.state_hash).execute()
        await secrets.remove(trx, pkceVerifier(row.server_id, row.user_id, row.state_hash))
      }
    })
    return expired.length
  }

  async #exchange(
    server: ServerRow,
    pending: { authorization_server: string; metadata: string; client_id: string; redirect_uri: string; resource: string | null; user_id: string },
    code: string,
    verifier: string,
    iss: string | null,
  ): Promise<void> {
    const metadata = JSON.parse(pending.metadata) as AuthorizationServerMetadata
    const secret = server.oauth_client_id === pending.client_id ? await this.#clientSecret(server) : undefined
    const client = { client_id: pending.client_id, ...(secret && { client_secret: secret }) }
    let tokens: Awaited<ReturnType<typeof exchangeAuthorization>>
    try {
      tokens = await exchangeAuthorization(pending.authorization_server, {
        metadata,
        clientInformation: client,
        authorizationCode: code,
        iss: iss ?? undefined,
        codeVerifier: verifier,
        redirectUri: pending.redirect_uri,
        resource: pending.resource ?? undefined,
        fetchFn: this.#fetch,
      })
    } catch (error) {
      if (error instanceof IssuerMismatchError || error instanceof AuthorizationServerMismatchError)
        throw new Failed('The answer did not come from the authorization server this sign-in was sent to (iss): connect again')
      if (error instanceof OAuthError) throw new Failed(`The authorization server refused the code${errorCode(error.code)}: connect again`)
      const failure = upstreamError(error)
      if (failure.code === 'protocol') throw new Failed('The authorization server did not answer the code with a token: connect again')
      throw new Failed(`The authorization server could not be used: ${failure.message.replace('The MCP server', 'it')}`)
    }
    if (tokens.token_type.toLowerCase() !== 'bearer') throw new Failed('The authorization server answered with a token that is not a bearer token')
    const { db, clock, secrets } = this.#deps
    const now = clock.now()
    const method = selectClientAuthMethod(client, metadata.token_endpoint_auth_methods_supported ?? []) as TokenEndpointAuthMethod
    const credential = buildCredential('oauth2', {
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      expires_at: tokens.expires_in === undefined ? undefined : isoTime(now + tokens.expires_in * 1000),
      token_endpoint: metadata.token_endpoint,
      client_id: client.client_id,
      client_secret: client.client_secret,
      token_endpoint_auth_method: method,
      scope: tokens.scope,
      resource: pending.resource ?? undefined,
    })
    await inTransaction(db, async (trx) => {
      await secrets.put(trx, userToken(server.id, pending.user_id), credential, pending.user_id)
      await saveConnection(trx, {
        serverId: server.id,
        userId: pending.user_id,
        kind: 'oauth',
        at: isoTime(now),
        revocationEndpoint: revocationEndpointOf(metadata),
      })
    })
  }

  /** The protected resource, its authorization server and the scope to ask for; 502 with a sentence when one is missing. */
  async #discover(server: ServerRow) {
    const failure = (why: string) => badGateway(`Could not sign in to MCP server '${server.name}': ${why}`)
    let challenge: ReturnType<typeof extractWWWAuthenticateParams> = {}
    try {
      const probe = await this.#fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: PROBE,
      })
      if (probe.status === 401) challenge = extractWWWAuthenticateParams(probe)
      await probe.body?.cancel().catch(() => {})
    } catch (error) {
      throw failure(upstreamError(error).message)
    }
    let info: Awaited<ReturnType<typeof discoverOAuthServerInfo>>
    try {
      info = await discoverOAuthServerInfo(server.url, { resourceMetadataUrl: challenge.resourceMetadataUrl, fetchFn: this.#fetch })
    } catch (error) {
      if (error instanceof IssuerMismatchError) throw failure("its authorization server's metadata names another issuer")
      throw failure(upstreamError(error).message)
    }
    const metadata = info.authorizationServerMetadata
    if (!metadata) throw failure('it names no authorization server with OAuth metadata (RFC 8414 or OpenID Connect discovery)')
    if (!isHttpUrl(metadata.authorization_endpoint) || !isHttpUrl(metadata.token_endpoint))
      throw failure("its authorization server's endpoints are not http(s) URLs")
    let resource = resourceUrlFromServerUrl(server.url).href
    if (info.resourceMetadata) {
      if (!checkResourceAllowed({ requestedResource: server.url, configuredResource: info.resourceMetadata.resource }))
        throw failure('its protected-resource metadata is for another resource')
      // Sent as the metadata says it (a pathless resource keeps having no trailing slash).
      resource = info.resourceMetadata.resource
    }
    const scope = challenge.scope ?? (info.resourceMetadata?.scopes_supported?.length ? info.resourceMetadata.scopes_supported.join(' ') : undefined)
    return { metadata, authorizationServer: info.authorizationServerUrl, resource, scope }
  }

  /** The client id (and secret) to use: an admin's, ours from an earlier registration at this issuer, or a new registration. */
  async #client(
    server: ServerRow,
    metadata: AuthorizationServerMetadata,
    authorizationServer: string,
    redirectUri: string,
    scope: string | undefined,
    origin: string,
    principal: Principal,
  ): Promise<{ client_id: string; client_secret?: string }> {
    const reusable =
      server.oauth_client_source === 'admin' ||
      (server.oauth_client_source === 'registered' && server.oauth_client_issuer === metadata.issuer && server.oauth_client_redirect_uri === redirectUri)
    if (reusable && server.oauth_client_id) {
      const secret = await this.#clientSecret(server)
      return { client_id: server.oauth_client_id, ...(secret && { client_secret: secret }) }
    }
    if (!metadata.registration_endpoint)
      throw badRequest(
        `The authorization server of MCP server '${server.name}' does not offer dynamic client registration: an admin sets a client id registered for Agentbox (oauth_client_id, redirect URI ${redirectUri})`,
      )
    let registered: Awaited<ReturnType<typeof registerClient>>
    try {
      registered = await registerClient(authorizationServer, {
        metadata,
        clientMetadata: {
          client_name: 'Agentbox',
          client_uri: origin,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        },
        scope,
        fetchFn: this.#fetch,
      })
    } catch (error) {
      const status = (error as { data?: { status?: unknown } }).data?.status
      const why = typeof status === 'number' ? `it refused to register Agentbox (HTTP ${status})` : upstreamError(error).message
      throw badGateway(`Could not sign in to MCP server '${server.name}': ${why}`)
    }
    const { db, clock, secrets } = this.#deps
    await inTransaction(db, async (trx) => {
      await trx
        .updateTable('mcp_servers')
        .set({
          oauth_client_id: registered.client_id,
          oauth_client_source: 'registered',
          oauth_client_issuer: metadata.issuer,
          oauth_client_redirect_uri: redirectUri,
          updated_at: isoTime(clock.now()),
        })
        .where('id', '=', server.id)
        .execute()
      await secrets.remove(trx, clientSecret(server.id))
      if (registered.client_secret)
        await secrets.put(
          trx,
          clientSecret(server.id),
          buildCredential('basic', { username: registered.client_id, password: registered.client_secret }),
          principal.userId,
        )
    })
    this.#deps.logger.info('registered with an mcp server authorization server', { server: server.name })
    return { client_id: registered.client_id, ...(registered.client_secret && { client_secret: registered.client_secret }) }
  }

  async #clientSecret(server: ServerRow): Promise<string | undefined> {
    try {
      const stored = await this.#deps.secrets.open(clientSecret(server.id))
      return stored?.type === 'basic' && stored.password !== '' ? stored.password : undefined
    } catch (error) {
      if (error instanceof SecretBoxError) return undefined
      throw error
    }
  }

  async #dropOldPending(trx: Kysely<Database>, serverId: string, userId: string): Promise<void> {
    const rows = await trx
      .selectFrom('mcp_server_authorizations')
      .select('state_hash')
      .where('server_id', '=', serverId)
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .execute()
    for (const row of rows.slice(PENDING_PER_USER - 1)) {
      await trx.deleteFrom('mcp_server_authorizations').where('state_hash', '=', row.state_hash).execute()
      await this.#deps.secrets.remove(trx, pkceVerifier(serverId, userId, row.state_hash))
    }
  }
}

/** An OAuth error code as the server sent it, when it looks like one (never its free-text description). */
function errorCode(code: string): string {
  return /^[\w.-]{1,64}$/.test(code) ? ` (${code})` : ''
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return url.protocol === 'https:' || url.protocol === 'http:'
  } catch {
    return false
  }
}

/** RFC 7009's endpoint, when the metadata names an http(s) one (OpenID Connect metadata may not have the field). */
function revocationEndpointOf(metadata: AuthorizationServerMetadata): string | null {
  const endpoint = (metadata as { revocation_endpoint?: unknown }).revocation_endpoint
  return typeof endpoint === 'string' && isHttpUrl(endpoint) ? endpoint : null
}
