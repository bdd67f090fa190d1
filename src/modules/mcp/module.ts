// The MCP capability as the server wires it: three endpoints serving the tool sets of the agent toolbox (an agent's
// live version, its draft with the design tools, an MCP app); every tools/call runs and is recorded through it.
import type { Authenticate } from '../../platform/auth/principal.ts'
import { publicOrigin } from '../../platform/http/public-origin.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { Toolbox } from '../toolbox/index.ts'
import { ClientNames } from './client-names.ts'
import { mcpRoutes, type VerifyOauthToken } from './routes.ts'
import { McpService } from './service.ts'

/** How often names no initialize refreshed for 30 days are deleted. */
const PRUNE_MS = 60 * 60 * 1000

export type McpModule = CapabilityModule<McpService>

export interface McpDependencies {
  /** The same resolver the auth guard uses (access, org and personal tokens). */
  readonly authenticate: Authenticate
  readonly oauth?: { readonly prefix: string; readonly verify: VerifyOauthToken }
  readonly toolbox: Toolbox
}

export function createMcpModule(ctx: ModuleContext, deps: McpDependencies): McpModule {
  const service = new McpService(deps.toolbox, new ClientNames(ctx.database, ctx.clock))
  return {
    routes: mcpRoutes({ service, authenticate: deps.authenticate, oauth: deps.oauth, origin: publicOrigin(ctx.config.publicUrl) }),
    service,
    start() {
      ctx.jobs.every('aged MCP client names', PRUNE_MS, () => service.clientNames.prune())
    },
  }
}
