// External MCP servers as the server wires them: admins register them, each user connects (a bearer token, or OAuth
// with Agentbox as the client), and their tools reach chat and the MCP gateway through the agent toolbox.
import { publicOrigin } from '../../platform/http/public-origin.ts'
import type { OutboundClient } from '../../platform/outbound/outbound-client.ts'
import type { SecretVault } from '../../platform/secrets/index.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { McpServerAuthorization } from './authorization.ts'
import { ExternalServers } from './external-servers.ts'
import { ExternalMcpClient } from './mcp-client.ts'
import { mcpServerRoutes } from './routes.ts'
import { MCP_SERVER_SECRETS } from './secrets.ts'
import { McpServersService } from './service.ts'

export interface McpServersModule extends CapabilityModule<McpServersService> {
  /** Each user's usable servers with their tools, and calls with the user's token: what the toolbox offers. */
  readonly external: ExternalServers
  readonly authorization: McpServerAuthorization
}

export interface McpServersDependencies {
  /** Tokens, client secrets and PKCE verifiers are sealed secrets of the namespace `mcp_server_token`, declared here. */
  readonly secrets: SecretVault
  readonly outbound: OutboundClient
}

/** Pending sign-ins past their 10 minutes are removed this often. */
const HOUSEKEEPING_MS = 10 * 60_000

export function createMcpServersModule(ctx: ModuleContext, deps: McpServersDependencies): McpServersModule {
  const { db } = ctx.database
  const secrets = deps.secrets.namespace(MCP_SERVER_SECRETS)
  const service = new McpServersService({ db, clock: ctx.clock, logger: ctx.logger, secrets, outbound: deps.outbound })
  const authorization = new McpServerAuthorization({ db, clock: ctx.clock, logger: ctx.logger, secrets, outbound: deps.outbound, servers: service })
  const external = new ExternalServers({ db, clock: ctx.clock, logger: ctx.logger, secrets, client: new ExternalMcpClient(deps.outbound.stream) })
  ctx.jobs.every('mcp-server-sign-ins', HOUSEKEEPING_MS, async () => {
    await authorization.removeExpired()
  })
  return {
    routes: mcpServerRoutes(ctx.guard, { service, authorization, external, origin: publicOrigin(ctx.config.publicUrl) }),
    service,
    external,
    authorization,
  }
}
