// An agent's design tools (the design MCP endpoint, and chat in design mode next): read and write the draft from inside
// a client, through the same services and argument schemas as the HTTP API, so a tool refuses exactly what the API refuses.
import { Type } from '@sinclair/typebox'
import type { Principal } from '../../platform/auth/principal.ts'
import { ToolError, type Tool } from '../../platform/tools/tool.ts'
import { getAgent, publishAgentVersion, PublishBody, SaveAgentBody, saveAgent, type AgentDesignStore } from '../agents/index.ts'
import { CreateTemplateBody, type TemplatesService } from '../ui-templates/index.ts'
import { deleteSkill, listSkills, putSkill, SkillBody } from '../skills/index.ts'
import { createWorkflow, deleteWorkflow, listWorkflows, replaceWorkflow, WORKFLOW_NOT_FOUND, WorkflowBody, type WorkflowInput } from '../workflows/index.ts'

const NoArgs = Type.Object({})
const UpdateAgentArgs = Type.Object({
  description: SaveAgentBody.properties.description,
  instructions: SaveAgentBody.properties.instructions,
  applications: SaveAgentBody.properties.applications,
})
const DeleteSkillArgs = Type.Object({ name: Type.String({ minLength: 1, description: "The skill's name (its frontmatter name)" }) })
const PutWorkflowArgs = Type.Object({
  name: WorkflowBody.properties.name,
  definition: WorkflowBody.properties.definition,
  id: Type.Optional(
    Type.String({ minLength: 1, description: 'Replace this workflow (by id); without it, the workflow with this name is replaced or a new one created' }),
  ),
})
const DeleteWorkflowArgs = Type.Object({ workflow: Type.String({ minLength: 1, description: "The workflow's name or id" }) })
const ListTemplatesArgs = Type.Object({
  api_name: Type.Optional(Type.String({ minLength: 1, description: "One of the draft's applications; all of them when left out" })),
  operation_id: Type.Optional(Type.String({ minLength: 1, description: 'Only this operation (with api_name)' })),
  include_html: Type.Optional(Type.Boolean({ description: "Also return each template's HTML (up to 1 MiB each). Default false." })),
})
const template = CreateTemplateBody.properties
const PutTemplateArgs = Type.Object({
  api_name: Type.String({ minLength: 1, description: "One of the draft's applications" }),
  operation_id: Type.String({ minLength: 1, description: 'The operation the template shows' }),
  template_id: Type.Optional(Type.String({ minLength: 1, description: 'Change this template; without it a new one is created (html then required)' })),
  html: Type.Optional(template.html),
  type: template.type,
  is_default: template.is_default,
  template_format: template.template_format,
  csp_config: template.csp_config,
  ui_meta: template.ui_meta,
})

const READ = { readOnlyHint: true, openWorldHint: false } as const
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const
const REMOVE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } as const

/** The design tools of one agent; `runWorkflow` is the workflows module's run_workflow over the draft (dry runs by default). */
export class DesignTools {
  readonly #store: AgentDesignStore
  readonly #templates: TemplatesService

  constructor(store: AgentDesignStore, templates: TemplatesService) {
    this.#store = store
    this.#templates = templates
  }

  tools(agent: string, runWorkflow: readonly Tool[]): Tool[] {
    const store = this.#store
    const templates = this.#templates
    // Templates belong to applications: these tools reach those the draft uses, with the same rights as the HTTP API.
    const draftApplication = async (principal: Principal, apiName: string): Promise<void> => {
      const uses = (await getAgent(store.db, principal, agent)).applications
      if (!uses.some((use) => use.api_name === apiName)) throw new ToolError('not_found', `'${apiName}' is not one of the draft's applications`)
    }
    const workflowId = async (principal: Principal, ref: string): Promise<string | undefined> => {
      const list = await listWorkflows(store, principal, agent)
      return (list.find((w) => w.id === ref) ?? list.find((w) => w.name === ref))?.id
    }
    const tools: Tool<never>[] = [
      tool(
        'get_agent',
        'Read the draft',
        `Returns ${agent}'s draft: description, instructions, the applications it uses, and its live version.`,
        NoArgs,
        READ,
        (p) => getAgent(store.db, p, agent),
      ),
      tool(
        'update_agent',
        'Change the draft',
        `Changes ${agent}'s draft description, instructions or applications (each optional; applications replaces the whole list). Publish to make it live.`,
        UpdateAgentArgs,
        WRITE,
        (p, args) => saveAgent(store, p, agent, args),
      ),
      tool('list_skills', 'List skills', `Lists the skills in ${agent}'s draft.`, NoArgs, READ, (p) => listSkills(store, p, agent)),
      tool(
        'put_skill',
        'Write a skill',
        `Adds a skill to ${agent}'s draft, or replaces the one with the same frontmatter name. content is the whole SKILL.md (YAML frontmatter with name and description, then Markdown).`,
        SkillBody,
        WRITE,
        (p, args) => putSkill(store, p, agent, args.content),
      ),
      tool('delete_skill', 'Delete a skill', `Removes a skill from ${agent}'s draft.`, DeleteSkillArgs, REMOVE, async (p, args) => {
        await deleteSkill(store, p, agent, args.name)
        return { deleted: args.name }
      }),
      tool('list_workflows', 'List workflows', `Lists the workflows in ${agent}'s draft.`, NoArgs, READ, (p) => listWorkflows(store, p, agent)),
      tool(
        'put_workflow',
        'Write a workflow',
        `Creates or replaces a workflow in ${agent}'s draft (by id when given, else by name). The definition is validated like the HTTP API's: nodes, connections, settings.`,
        PutWorkflowArgs,
        WRITE,
        async (p, args) => {
          // The definition's node types are checked by validateDefinition (as for the HTTP API), not by the schema.
          const input = { name: args.name, definition: args.definition } as WorkflowInput
          if (args.id !== undefined) return replaceWorkflow(store, p, agent, args.id, input)
          const existing = await workflowId(p, args.name)
          return existing ? replaceWorkflow(store, p, agent, existing, input) : createWorkflow(store, p, agent, input)
        },
      ),
      tool('delete_workflow', 'Delete a workflow', `Removes a workflow from ${agent}'s draft.`, DeleteWorkflowArgs, REMOVE, async (p, args) => {
        const id = await workflowId(p, args.workflow)
        if (!id) throw new ToolError('not_found', `${WORKFLOW_NOT_FOUND}: '${args.workflow}'`)
        await deleteWorkflow(store, p, agent, id)
        return { deleted: args.workflow }
      }),
      ...(runWorkflow as Tool<never>[]),
      tool(
        'list_templates',
        'List UI templates',
        `Lists the UI templates (MCP Apps) of the operations of ${agent}'s draft's applications, the default one first for each operation. Templates belong to the application: a change reaches every agent using it at once, without publishing.`,
        ListTemplatesArgs,
        READ,
        async (p, args) => {
          const names = args.api_name ? [args.api_name] : (await getAgent(store.db, p, agent)).applications.map((use) => use.api_name)
          if (args.api_name) await draftApplication(p, args.api_name)
          const listed = []
          for (const apiName of names) {
            if (args.operation_id) {
              const { templates: full } = await templates.list(p, apiName, args.operation_id)
              listed.push(...full.map(({ html: text, ...rest }) => ({ ...rest, ...(args.include_html && { html: text }) })))
            } else {
              const { templates: summaries } = await templates.listOfApplication(p, apiName)
              for (const summary of summaries) listed.push(args.include_html ? await templates.get(p, apiName, summary.id) : summary)
            }
          }
          return { templates: listed }
        },
      ),
      tool(
        'put_template',
        'Write a UI template',
        `Creates a UI template (an MCP App: an HTML document a client renders for the operation's result) for an operation of one of ${agent}'s draft's applications, or changes the one template_id names. is_default makes it the template the operation's tool points at. Same checks as the HTTP API: html at most 1 MiB, template_format "mcp-app".`,
        PutTemplateArgs,
        WRITE,
        async (p, args) => {
          await draftApplication(p, args.api_name)
          const { api_name: apiName, operation_id: operationId, template_id: templateId, ...fields } = args
          if (templateId !== undefined) {
            const current = await templates.get(p, apiName, templateId)
            if (current.operation_id !== operationId) throw new ToolError('not_found', `Template not found for the operation '${operationId}'`)
            return templates.update(p, apiName, templateId, fields)
          }
          if (fields.html === undefined)
            throw new ToolError('invalid_arguments', 'html is required to create a template', [{ loc: ['html'], msg: 'Field required', type: 'missing' }])
          return templates.create(p, apiName, operationId, { ...fields, html: fields.html })
        },
      ),
      tool(
        'publish',
        'Publish the draft',
        `Publishes ${agent}'s draft as a new version, which becomes live: chat and the live MCP URL use it from now on.`,
        PublishBody,
        { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        (p, args) => publishAgentVersion(store, p, agent, args.note ?? null),
      ),
    ]
    return tools as Tool[]
  }
}

function tool<Input extends ReturnType<typeof Type.Object>>(
  name: string,
  title: string,
  description: string,
  inputSchema: Input,
  annotations: Tool['annotations'],
  handler: Tool<Input>['handler'],
): Tool<never> {
  return { name, title, description, inputSchema, annotations, handler } as unknown as Tool<never>
}
