// The agent toolbox as the server wires it: the tool sets of agents, MCP apps and lists of applications over the tools
// other modules provide (workflows, skills, API operations) plus the design tools, the one run step that records every
// call, and the routes that show the console what an endpoint offers.
import { cachedOrgSettings } from '../../platform/org-settings.ts'
import type { ToolProvider } from '../../platform/tools/tool.ts'
import type { ApplicationUsesCheck } from '../agents/index.ts'
import type { OperationTools } from '../applications/index.ts'
import type { InteractionsService } from '../interactions/index.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { ApplicationSkills, SkillToolsTarget } from '../skills/index.ts'
import type { TemplateCatalog, TemplatesService } from '../ui-templates/index.ts'
import type { WorkflowToolsTarget } from '../workflows/index.ts'
import { DesignTools } from './design-tools.ts'
import type { ExternalToolSource } from './external-tools.ts'
import { toolboxRoutes } from './routes.ts'
import { Toolbox } from './toolbox.ts'

export type ToolboxModule = CapabilityModule<Toolbox>

export interface ToolboxModuleDependencies {
  readonly workflowTools: ToolProvider<WorkflowToolsTarget>
  readonly skillTools: ToolProvider<SkillToolsTarget>
  readonly operationTools: OperationTools
  readonly applicationSkills: ApplicationSkills
  /** UI templates, served as resources their operation tools point at. */
  readonly templates: TemplateCatalog
  /** What list_templates and put_template read and write. */
  readonly templateDesign: TemplatesService
  readonly interactions: InteractionsService
  readonly licenseLapsed: () => boolean
  /** The applications module's check of the applications an agent's save names (update_agent). */
  readonly checkApplicationUses: ApplicationUsesCheck
  /** The external MCP servers' tools for chat and the gateway. */
  readonly externalServers?: ExternalToolSource
}

export function createToolboxModule(ctx: ModuleContext, deps: ToolboxModuleDependencies): ToolboxModule {
  const { db } = ctx.database
  const orgSettings = cachedOrgSettings(db)
  const toolbox = new Toolbox({
    db,
    logger: ctx.logger,
    workflowTools: deps.workflowTools,
    skillTools: deps.skillTools,
    operationTools: deps.operationTools,
    applicationSkills: deps.applicationSkills,
    templates: deps.templates,
    designTools: new DesignTools({ db, clock: ctx.clock, checkApplicationUses: deps.checkApplicationUses }, deps.templateDesign),
    interactions: deps.interactions,
    licenseLapsed: deps.licenseLapsed,
    operationToolLimit: async () => (await orgSettings()).mcp_operation_tool_limit,
    externalServers: deps.externalServers,
  })
  return { routes: toolboxRoutes(ctx.guard, toolbox), service: toolbox }
}
