// An agent's design tools (the design MCP endpoint, and chat in design mode next): read and write the draft from inside
// a client, through the same services and argument schemas as the HTTP API, so a tool refuses exactly what the API refuses.
import { Type } from '@sinclair/typebox'
import type { Principal } from '../../platform/auth/principal.ts'
import { ToolError, type Tool } from '../../platform/tools/tool.ts'
import { getAgent, publishAgentVersion, PublishBody, SaveAgentBody, saveAgent, type AgentDesignStore } from '../agents/index.ts'
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

const READ = { readOnlyHint: true, openWorldHint: false } as const
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const
const REMOVE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } as const

/** The design tools of one agent; `runWorkflow` is the workflows module's run_workflow over the draft (dry runs by default). */
export class DesignTools {
  readonly #store: AgentDesignStore

  constructor(store: AgentDesignStore) {
    this.#store = store
  }

  tools(agent: string, runWorkflow: readonly Tool[]): Tool[] {
    const store = this.#store
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
