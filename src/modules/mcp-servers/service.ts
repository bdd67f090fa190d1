// External MCP servers: admins register them (name, URL checked by the outbound rules, kind of auth); each member sees
// them with whether they are connected, and connects with a bearer token (OAuth connections: authorization.ts). Tokens
// are sealed secrets of the vault, per user; this service keeps only who is connected since when, and why a connection
// stopped working. Changing a server's URL or kind of auth, or deleting it, drops every user's token with it.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { McpServerAuth } from '../../platform/db/tables/mcp-servers.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { isUniqueViolation } from '../../platform/db/unique-violation.ts'
import { badRequest, conflict, invalidInput, notFound, type InputIssue } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { Logger } from '../../platform/log.ts'
import type { OutboundClient } from '../../platform/outbound/outbound-client.ts'
import { buildCredential, SecretBoxError, type SecretNamespace } from '../../platform/secrets/index.ts'
import { agentNameIssue, normaliseAgentName } from '../agents/index.ts'
import { clientSecret, userToken } from './secrets.ts'
import {
  allServers,
  connectionOf,
  connectionsOf,
  type ConnectionRow,
  removeConnection,
  removeServerData,
  saveConnection,
  serverByName,
  type ServerRow,
} from './store.ts'

export const SERVER_NOT_FOUND = 'MCP server not found'

export interface McpServerView {
  name: string
  url: string
  auth: McpServerAuth
  connected: boolean
  reason: string | null
  connected_at: string | null
  oauth_client_id: string | null
  oauth_client_source: 'admin' | 'registered' | null
  created_at: string
  updated_at: string
}

export interface CreateServerInput {
  name: string
  url: string
  auth: McpServerAuth
  oauth_client_id?: string
  oauth_client_secret?: string
}

export interface UpdateServerInput {
  url?: string
  auth?: McpServerAuth
  oauth_client_id?: string | null
  oauth_client_secret?: string | null
}

export interface McpServersServiceDependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly logger: Logger
  readonly secrets: SecretNamespace
  readonly outbound: OutboundClient
}

/** Whether `principal` can use `server` now, and if not, why. */
export interface ConnectionState {
  readonly connected: boolean
  readonly reason: string | null
  readonly connection: ConnectionRow | undefined
}

const REVOKE_TIMEOUT_MS = 10_000

export class McpServersService {
  readonly #deps: McpServersServiceDependencies

  constructor(deps: McpServersServiceDependencies) {
    this.#deps = deps
  }

  /** Every server, with the caller's connection state. */
  async list(principal: Principal): Promise<McpServerView[]> {
    const [servers, connections] = await Promise.all([allServers(this.#deps.db), connectionsOf(this.#deps.db, principal.userId)])
    return Promise.all(servers.map(async (server) => view(server, await this.stateOf(server, principal.userId, connections.get(server.id)))))
  }

  async get(principal: Principal, name: string): Promise<McpServerView> {
    const server = await this.server(name)
    return view(server, await this.stateOf(server, principal.userId))
  }

  /** The server named `name` (after normalising it like a new name), or 404. */
  async server(name: string): Promise<ServerRow> {
    const server = await serverByName(this.#deps.db, normaliseAgentName(name))
    if (!server) throw notFound(SERVER_NOT_FOUND)
    return server
  }

  /**
   * Connected: a token is stored and opens, and no call found it refused since. Servers without auth are connected for
   * everyone. A stored token whose key is missing (a database restored without its keys) is not connected, with why.
   */
  async stateOf(server: ServerRow, userId: string, known?: ConnectionRow | null): Promise<ConnectionState> {
    if (server.auth === 'none') return { connected: true, reason: null, connection: undefined }
    const connection = known === undefined ? await connectionOf(this.#deps.db, server.id, userId) : (known ?? undefined)
    if (!connection) return { connected: false, reason: null, connection }
    if (connection.problem !== null) return { connected: false, reason: connection.problem, connection }
    const stored = (await this.#deps.secrets.status(server.id, userId)).get('')
    if (!stored) return { connected: false, reason: 'The token is no longer stored: connect again', connection }
    if (stored.problem !== null) return { connected: false, reason: `The token cannot be opened (${stored.problem}): connect again`, connection }
    return { connected: true, reason: null, connection }
  }

  async create(principal: Principal, input: CreateServerInput): Promise<McpServerView> {
    const name = normaliseAgentName(input.name)
    const issues: InputIssue[] = []
    const nameIssue = agentNameIssue(input.name)
    if (nameIssue) issues.push({ ...nameIssue, msg: nameIssue.msg.replace('Agent name', 'Server name') })
    issues.push(...(await this.#urlIssues(input.url)), ...clientIssues(input.auth, input.oauth_client_id, input.oauth_client_secret))
    if (issues.length > 0) throw invalidInput(...issues)
    const { db, clock, secrets } = this.#deps
    const now = isoTime(clock.now())
    const server: ServerRow = {
      id: newId(),
      name,
      url: input.url.trim(),
      auth: input.auth,
      oauth_client_id: input.oauth_client_id ?? null,
      oauth_client_source: input.oauth_client_id === undefined ? null : 'admin',
      oauth_client_issuer: null,
      oauth_client_redirect_uri: null,
      revision: 1,
      created_by: principal.userId,
      created_at: now,
      updated_at: now,
    }
    const taken = () => conflict(`An MCP server named '${name}' exists`)
    await inTransaction(db, async (trx) => {
      if (await serverByName(trx, name)) throw taken()
      try {
        await trx.insertInto('mcp_servers').values(server).execute()
      } catch (error) {
        // Another admin's request took the name between the check and the insert.
        if (isUniqueViolation(error)) throw taken()
        throw error
      }
      if (input.oauth_client_id !== undefined && input.oauth_client_secret !== undefined)
        await secrets.put(
          trx,
          clientSecret(server.id),
          buildCredential('basic', { username: input.oauth_client_id, password: input.oauth_client_secret }),
          principal.userId,
        )
      await writeAudit(trx, clock, {
        actor_id: principal.userId,
        action: 'mcp_server.create',
        target_type: 'mcp_server',
        target_id: name,
        details: { url: server.url, auth: server.auth, oauth_client_id: server.oauth_client_id },
      })
    })
    return view(server, await this.stateOf(server, principal.userId, null))
  }

  /**
   * Changes the URL, the kind of auth or the OAuth client. A new URL or kind of auth drops every user's connection (their
   * tokens were for the old one) and a registration made by Agentbox; a new client drops the OAuth connections.
   */
  async update(principal: Principal, name: string, input: UpdateServerInput): Promise<McpServerView> {
    const { db, clock, secrets } = this.#deps
    const server = await this.server(name)
    const auth = input.auth ?? server.auth
    const clientId = input.oauth_client_id === undefined ? (server.oauth_client_source === 'admin' ? server.oauth_client_id : undefined) : input.oauth_client_id
    const issues = [
      ...(input.url === undefined ? [] : await this.#urlIssues(input.url)),
      ...clientIssues(auth, input.oauth_client_id ?? undefined, input.oauth_client_secret ?? undefined, clientId ?? undefined),
    ]
    if (issues.length > 0) throw invalidInput(...issues)
    const url = input.url?.trim() ?? server.url
    const endpointChanged = url !== server.url || auth !== server.auth
    const clientChanged =
      input.oauth_client_id !== undefined && input.oauth_client_id !== (server.oauth_client_source === 'admin' ? server.oauth_client_id : null)
    const next: ServerRow = { ...server, url, auth, updated_at: isoTime(clock.now()) }
    if (
      auth !== 'oauth' ||
      (input.oauth_client_id === null && server.oauth_client_source === 'admin') ||
      (endpointChanged && server.oauth_client_source === 'registered')
    ) {
      next.oauth_client_id = null
      next.oauth_client_source = null
    }
    if (typeof input.oauth_client_id === 'string') {
      next.oauth_client_id = input.oauth_client_id
      next.oauth_client_source = 'admin'
    }
    if (next.oauth_client_source !== 'registered') {
      next.oauth_client_issuer = null
      next.oauth_client_redirect_uri = null
    }
    if (endpointChanged || clientChanged) next.revision = server.revision + 1
    await inTransaction(db, async (trx) => {
      await trx.updateTable('mcp_servers').set(next).where('id', '=', server.id).execute()
      if (endpointChanged || clientChanged) {
        // The tokens were issued for the old endpoint or client: nobody is connected any more.
        await removeServerData(trx, server.id)
        await secrets.removeOf(trx, server.id, (owner) => owner !== 'org')
      }
      const secretGiven = input.oauth_client_secret !== undefined
      if (next.oauth_client_source !== 'admin' || clientChanged || secretGiven) await secrets.remove(trx, clientSecret(server.id))
      if (next.oauth_client_source === 'admin' && typeof input.oauth_client_secret === 'string')
        await secrets.put(
          trx,
          clientSecret(server.id),
          buildCredential('basic', { username: next.oauth_client_id!, password: input.oauth_client_secret }),
          principal.userId,
        )
      await writeAudit(trx, clock, {
        actor_id: principal.userId,
        action: 'mcp_server.update',
        target_type: 'mcp_server',
        target_id: server.name,
        details: {
          ...(input.url !== undefined && { url }),
          ...(input.auth !== undefined && { auth }),
          ...(input.oauth_client_id !== undefined && { oauth_client_id: input.oauth_client_id }),
          ...(input.oauth_client_secret !== undefined && { oauth_client_secret: input.oauth_client_secret === null ? 'cleared' : 'set' }),
          connections_removed: endpointChanged || clientChanged,
        },
      })
    })
    return view(next, await this.stateOf(next, principal.userId))
  }

  /** Removes the server, every user's connection and token, and its pending authorizations. */
  async delete(principal: Principal, name: string): Promise<void> {
    const { db, clock, secrets } = this.#deps
    const server = await this.server(name)
    await inTransaction(db, async (trx) => {
      await trx.deleteFrom('mcp_servers').where('id', '=', server.id).execute()
      await removeServerData(trx, server.id)
      await secrets.removeOf(trx, server.id)
      await writeAudit(trx, clock, { actor_id: principal.userId, action: 'mcp_server.delete', target_type: 'mcp_server', target_id: server.name, details: {} })
    })
  }

  /** Stores the caller's bearer token for a `bearer` server (replacing any); 400 for another kind of server. */
  async connectWithToken(principal: Principal, name: string, token: string): Promise<McpServerView> {
    const server = await this.server(name)
    if (server.auth !== 'bearer')
      throw badRequest(
        server.auth === 'oauth'
          ? `MCP server '${server.name}' signs in with OAuth: POST /api/mcp-servers/${server.name}/connect`
          : `MCP server '${server.name}' needs no connection`,
      )
    const { db, clock, secrets } = this.#deps
    const at = isoTime(clock.now())
    await inTransaction(db, async (trx) => {
      await secrets.put(trx, userToken(server.id, principal.userId), buildCredential('bearer', { token }), principal.userId)
      await saveConnection(trx, { serverId: server.id, userId: principal.userId, kind: 'bearer', at })
    })
    return view(server, await this.stateOf(server, principal.userId))
  }

  /**
   * Forgets the caller's connection and token (and their pending authorizations). An OAuth refresh token is also revoked
   * at the authorization server when it names a revocation endpoint (RFC 7009), as a courtesy: a failure there is logged.
   */
  async disconnect(principal: Principal, name: string): Promise<void> {
    const server = await this.server(name)
    const { db, secrets } = this.#deps
    const connection = await connectionOf(db, server.id, principal.userId)
    let refresh: { token: string; clientId?: string; clientSecret?: string } | null = null
    if (connection?.revocation_endpoint) {
      try {
        const stored = await secrets.open(userToken(server.id, principal.userId))
        if (stored?.type === 'oauth2' && stored.refresh_token)
          refresh = { token: stored.refresh_token, clientId: stored.client_id, clientSecret: stored.client_secret }
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error
      }
    }
    await inTransaction(db, async (trx) => {
      await removeConnection(trx, server.id, principal.userId)
      await trx.deleteFrom('mcp_server_authorizations').where('server_id', '=', server.id).where('user_id', '=', principal.userId).execute()
      await secrets.removeOf(trx, server.id, (owner) => owner === principal.userId)
    })
    if (refresh && connection?.revocation_endpoint) await this.#revoke(connection.revocation_endpoint, refresh)
  }

  async #revoke(endpoint: string, refresh: { token: string; clientId?: string; clientSecret?: string }): Promise<void> {
    const form = new URLSearchParams({ token: refresh.token, token_type_hint: 'refresh_token' })
    if (refresh.clientId) form.set('client_id', refresh.clientId)
    if (refresh.clientSecret) form.set('client_secret', refresh.clientSecret)
    try {
      const answer = await this.#deps.outbound.fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        maxRedirects: 0,
        timeoutMs: REVOKE_TIMEOUT_MS,
        maxResponseBytes: 64 * 1024,
      })
      if (answer.status >= 400) this.#deps.logger.warn('mcp server token not revoked', { status: answer.status })
    } catch (error) {
      this.#deps.logger.warn('mcp server token not revoked', { error: error instanceof Error ? error.message : String(error) })
    }
  }

  async #urlIssues(raw: string): Promise<InputIssue[]> {
    const problem = await this.#deps.outbound.checkSavedUrl(raw.trim())
    return problem === null ? [] : [{ loc: ['url'], msg: problem, type: 'value_error', input: raw }]
  }
}

/** An OAuth client id only for OAuth servers; a secret only with a client id. */
function clientIssues(auth: McpServerAuth, clientId: string | undefined, secret: string | undefined, effectiveClientId = clientId): InputIssue[] {
  const issues: InputIssue[] = []
  if (clientId !== undefined && auth !== 'oauth')
    issues.push({ loc: ['oauth_client_id'], msg: 'Only an oauth server takes a client id', type: 'value_error', input: clientId })
  if (secret !== undefined && (auth !== 'oauth' || effectiveClientId === undefined))
    issues.push({ loc: ['oauth_client_secret'], msg: 'A client secret needs the client id of an oauth server', type: 'value_error', input: '***' })
  return issues
}

function view(server: ServerRow, state: ConnectionState): McpServerView {
  return {
    name: server.name,
    url: server.url,
    auth: server.auth,
    connected: state.connected,
    reason: state.reason,
    connected_at: state.connection?.connected_at ?? null,
    oauth_client_id: server.auth === 'oauth' ? server.oauth_client_id : null,
    oauth_client_source: server.auth === 'oauth' ? server.oauth_client_source : null,
    created_at: server.created_at,
    updated_at: server.updated_at,
  }
}
