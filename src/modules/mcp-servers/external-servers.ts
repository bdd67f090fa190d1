// The external servers a user can use right now, with their tools, and a call of one tool with the user's own token:
// what the agent toolbox turns into the tools chat and the MCP gateway offer. A token about to expire is refreshed first
// (the vault, once for all concurrent callers); a connection whose token is refused, or whose refresh is refused, is
// marked broken with why, its token dropped, and the server shown as not connected, never a 500. Listings are kept
// briefly (tool-lists.ts).
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import type { Logger } from '../../platform/log.ts'
import { CredentialRefreshError, SecretBoxError, type SecretNamespace } from '../../platform/secrets/index.ts'
import { ToolError, type ToolContext } from '../../platform/tools/tool.ts'
import type { CallAnswer, ContentBlock, ExternalMcpClient, ListedTool } from './mcp-client.ts'
import { UpstreamError } from './mcp-client.ts'
import { userToken } from './secrets.ts'
import { allServers, connectionOf, connectionsOf, type ConnectionRow, markBroken, serverByName, type ServerRow } from './store.ts'
import { type Kept, ToolListCache } from './tool-lists.ts'

/** One server's tools for one user, as listed (cut at 500), or why they could not be listed just now. */
export interface ExternalServerTools {
  /** The server's name in Agentbox: the prefix of its tools' names. */
  readonly server: string
  readonly tools: readonly ListedTool[]
  /** Why the tools could not be listed (unreachable, not allowed, not MCP), else null. */
  readonly problem: string | null
}

/** Not connected, with why (the tool error chat and the gateway show). */
class NotConnected extends Error {}

const CONNECT_AGAIN = 'connect again on the MCP servers page of Agentbox'
const MAX_ERROR_TEXT = 4000

/** A content block as text for a model: the text itself, or a short note of what was not shown. */
function blockText(block: ContentBlock): string {
  if (block.type === 'text' && typeof block.text === 'string') return block.text
  const resource = block.resource as { text?: unknown; uri?: unknown } | undefined
  if (block.type === 'resource' && typeof resource?.text === 'string') return resource.text
  if (block.type === 'resource_link' && typeof block.uri === 'string') return `[resource: ${block.uri}]`
  const kind = typeof block.mimeType === 'string' ? `${block.type} (${block.mimeType})` : block.type
  return `[${kind} not shown]`
}

/** The answer as the tool's content: its structured content when it has some, else its blocks as text. */
export function answerContent(answer: CallAnswer): unknown {
  if (answer.structuredContent !== undefined) return answer.structuredContent
  return answer.content.map(blockText).join('\n')
}

export interface ExternalServersDependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly logger: Logger
  readonly secrets: SecretNamespace
  readonly client: ExternalMcpClient
}

export class ExternalServers {
  readonly #deps: ExternalServersDependencies
  readonly #lists: ToolListCache<ExternalServerTools | null>

  constructor(deps: ExternalServersDependencies) {
    this.#deps = deps
    this.#lists = new ToolListCache(deps.clock)
  }

  /**
   * The servers `principal` can use now, by name, each with its tools or why they could not be listed. Servers without
   * auth are everyone's; others need a working connection. Listings are kept briefly per user and server.
   */
  async toolsOf(principal: Principal): Promise<ExternalServerTools[]> {
    const [servers, connections] = await Promise.all([allServers(this.#deps.db), connectionsOf(this.#deps.db, principal.userId)])
    // A connection whose token was refused (its problem is set) is left out until the member connects again.
    const usable = servers.filter((server) => server.auth === 'none' || connections.get(server.id)?.problem === null)
    const listed = await Promise.all(usable.map((server) => this.#listing(server, principal.userId, connections.get(server.id))))
    return listed.filter((entry): entry is ExternalServerTools => entry !== null)
  }

  /** One server's tools for `principal` (the console's tool list); null when they are not connected. */
  async toolsOfServer(principal: Principal, server: ServerRow): Promise<ExternalServerTools | null> {
    const connection = server.auth === 'none' ? undefined : await connectionOf(this.#deps.db, server.id, principal.userId)
    if (server.auth !== 'none' && (!connection || connection.problem !== null)) return null
    return this.#listing(server, principal.userId, connection)
  }

  /**
   * Calls `tool` of server `serverName` as `principal`, with their token (refreshed when near expiry), and answers the
   * tool's content. Failures are ToolErrors a person can act on: not connected, refused, unreachable, the tool's own error.
   */
  async call(principal: Principal, serverName: string, tool: string, args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const server = await serverByName(this.#deps.db, serverName)
    if (!server) throw new ToolError('not_found', `MCP server '${serverName}' no longer exists`)
    const connection = server.auth === 'none' ? undefined : await connectionOf(this.#deps.db, server.id, principal.userId)
    let token: string | null
    try {
      token = await this.#token(server, principal.userId, connection)
    } catch (error) {
      if (error instanceof NotConnected) throw new ToolError('not_authenticated', error.message)
      if (error instanceof CredentialRefreshError) throw new ToolError('upstream_failed', `MCP server '${server.name}': ${error.message}`)
      throw error
    }
    if (token !== null) context.useSecrets([token])
    let answer: CallAnswer
    try {
      answer = await this.#deps.client.callTool(server.url, token, tool, args)
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error
      if (error.code === 'unauthorized' && connection) {
        const problem = `The server refused the token: ${CONNECT_AGAIN}`
        await this.#broken(server, principal.userId, connection, problem)
        throw new ToolError('not_authenticated', `MCP server '${server.name}' is not connected: ${problem}`)
      }
      throw new ToolError('upstream_failed', `MCP server '${server.name}': ${error.message}`)
    }
    if (answer.isError) {
      const text = answer.content.map(blockText).join('\n').slice(0, MAX_ERROR_TEXT)
      throw new ToolError('upstream_failed', text || `The tool '${tool}' of MCP server '${server.name}' failed`)
    }
    return answerContent(answer)
  }

  #listing(server: ServerRow, userId: string, connection: ConnectionRow | undefined): Promise<ExternalServerTools | null> {
    // A server without auth lists the same tools for everyone; others list what each user's token may see.
    const key = `${server.id}|${server.revision}|${server.auth === 'none' ? '*' : `${userId}|${connection?.connected_at}`}`
    return this.#lists.get(key, () => this.#list(server, userId, connection))
  }

  async #list(server: ServerRow, userId: string, connection: ConnectionRow | undefined): Promise<Kept<ExternalServerTools | null>> {
    let token: string | null
    try {
      token = await this.#token(server, userId, connection)
    } catch (error) {
      if (error instanceof NotConnected) return { value: null, keep: false }
      if (error instanceof CredentialRefreshError) return { value: { server: server.name, tools: [], problem: error.message }, keep: 'failed' }
      throw error
    }
    try {
      const { tools, cut } = await this.#deps.client.listTools(server.url, token)
      if (cut) this.#deps.logger.warn('mcp server lists more tools than are kept', { server: server.name, kept: tools.length })
      return { value: { server: server.name, tools, problem: null }, keep: 'ok' }
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error
      if (error.code === 'unauthorized' && connection) {
        await this.#broken(server, userId, connection, `The server refused the token: ${CONNECT_AGAIN}`)
        return { value: null, keep: false }
      }
      return { value: { server: server.name, tools: [], problem: error.message }, keep: 'failed' }
    }
  }

  /**
   * The token to send (null for a server without auth). Throws NotConnected (with why) when there is none that works:
   * no connection, a broken one, a key that is missing, a refresh that was refused (the connection is then marked
   * broken), or an OAuth token past its expiry with nothing to renew it. A refresh that could not reach the token
   * endpoint is a CredentialRefreshError ('unavailable'): try again later.
   */
  async #token(server: ServerRow, userId: string, connection: ConnectionRow | undefined): Promise<string | null> {
    if (server.auth === 'none') return null
    const notConnected = (problem: string) => new NotConnected(`MCP server '${server.name}' is not connected: ${problem}`)
    if (!connection) throw new NotConnected(`You have not connected MCP server '${server.name}': connect it on the MCP servers page of Agentbox`)
    if (connection.problem !== null) throw notConnected(connection.problem)
    let credential: Awaited<ReturnType<SecretNamespace['openForUse']>>
    try {
      credential = await this.#deps.secrets.openForUse(userToken(server.id, userId))
    } catch (error) {
      if (error instanceof SecretBoxError) throw notConnected(`The token cannot be opened (${error.message}): ${CONNECT_AGAIN}`)
      if (!(error instanceof CredentialRefreshError) || error.code !== 'rejected') throw error
      const code = error.oauthError ? ` (${error.oauthError})` : ''
      const problem = `The sign-in expired and the authorization server refused to renew it${code}: ${CONNECT_AGAIN}`
      await this.#broken(server, userId, connection, problem)
      throw notConnected(problem)
    }
    if (!credential) throw notConnected(`The token is no longer stored: ${CONNECT_AGAIN}`)
    if (credential.type === 'bearer') return credential.token
    if (credential.type !== 'oauth2') throw notConnected(`The stored token is not one this server takes: ${CONNECT_AGAIN}`)
    if (credential.expires_at !== undefined && Date.parse(credential.expires_at) <= this.#deps.clock.now()) {
      const problem = `The sign-in expired and cannot be renewed: ${CONNECT_AGAIN}`
      await this.#broken(server, userId, connection, problem)
      throw notConnected(problem)
    }
    return credential.access_token
  }

  /** Marks the connection broken and drops its token, unless the user connected again meanwhile. */
  async #broken(server: ServerRow, userId: string, connection: ConnectionRow, problem: string): Promise<void> {
    const { db, clock, secrets, logger } = this.#deps
    const marked = await inTransaction(db, async (trx) => {
      if (!(await markBroken(trx, server.id, userId, connection.connected_at, problem, isoTime(clock.now())))) return false
      await secrets.remove(trx, userToken(server.id, userId))
      return true
    })
    if (marked) logger.info('mcp server connection broken', { server: server.name, user_id: userId })
  }
}
