// The MCP capability as the server wires it: three endpoints over the tools other modules provide (workflows, skills,
// API operations) plus the design tools over an agent's draft; every tools/call recorded as an interaction.
import type { Authenticate } from '../../platform/auth/principal.ts'
import { publicOrigin } from '../../platform/http/public-origin.ts'
import type { ToolProvider } from '../../platform/tools/tool.ts'
import type { OperationTools } from '../applications/tools.ts'
import type { ApplicationSkills } from '../skills/home.ts'
import type { InteractionsService } from '../interactions/service.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { SkillToolsTarget } from '../skills/tools.ts'
import type { WorkflowToolsTarget } from '../workflows/tools.ts'
import { DesignTools } from './design-tools.ts'
import { mcpRoutes, type VerifyOauthToken } from './routes.ts'
import { McpService } from './service.ts'

export type McpModule = CapabilityModule<McpService>

export interface McpDependencies {
  /** The same resolver the auth guard uses (access, org and personal tokens). */
  readonly authenticate: Authenticate
  readonly oauth?: { readonly prefix: string; readonly verify: VerifyOauthToken }
  readonly workflowTools: ToolProvider<WorkflowToolsTarget>
  readonly skillTools: ToolProvider<SkillToolsTarget>
  readonly operationTools: OperationTools
  readonly applicationSkills: ApplicationSkills
  readonly interactions: InteractionsService
  readonly licenseLapsed: () => boolean
}

export function createMcpModule(ctx: ModuleContext, deps: McpDependencies): McpModule {
  const service = new McpService({
    db: ctx.database.db,
    logger: ctx.logger,
    workflowTools: deps.workflowTools,
    skillTools: deps.skillTools,
    operationTools: deps.operationTools,
    applicationSkills: deps.applicationSkills,
    designTools: new DesignTools({ db: ctx.database.db, clock: ctx.clock }),
    interactions: deps.interactions,
    licenseLapsed: deps.licenseLapsed,
  })
  return { routes: mcpRoutes({ service, authenticate: deps.authenticate, oauth: deps.oauth, origin: publicOrigin(ctx.config.publicUrl) }), service }
}
