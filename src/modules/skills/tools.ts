// load_skill: an agent's skills as a tool (Agent Skills' progressive disclosure). The tool's description lists each
// skill's name and description; calling it returns one skill's instructions, the SKILL.md body.
import { Type } from '@sinclair/typebox'
import type { Principal } from '../../platform/auth/principal.ts'
import { ToolError, type Tool } from '../../platform/tools/tool.ts'
import { type AgentsStore, readSourceDocument } from '../agents/index.ts'
import type { ApplicationSkills } from './home.ts'
import { skillsOf, type StoredSkill } from './records.ts'
import { SKILL_NOT_FOUND } from './service.ts'
import { normaliseSkillName } from './validator/index.ts'
import { splitFrontmatter } from './validator/frontmatter.ts'

/**
 * An agent's live version or draft, or an MCP app; or skills a transport already read for the exact version it serves
 * and checked the caller's access to on the same request (an MCP surface, kept per version and caller), so that
 * load_skill answers from them instead of reading the version again.
 */
export type SkillToolsTarget =
  | { readonly agent: string; readonly source: 'live' | 'draft' }
  | { readonly application: string }
  | { readonly holder: string; readonly skills: readonly StoredSkill[] }

const LoadSkillArgs = Type.Object({ name: Type.String({ minLength: 1, description: "The skill's name, as listed in this tool's description" }) })

async function skillsFor(store: AgentsStore, applications: ApplicationSkills, principal: Principal, target: SkillToolsTarget): Promise<readonly StoredSkill[]> {
  if ('skills' in target) return target.skills
  if ('application' in target) return (await applications.ofMcpApp(principal, target.application)) ?? []
  const { document } = await readSourceDocument(store.db, principal, target.agent, target.source, 'Only owners can use the draft of this agent')
  return document ? skillsOf(document) : []
}

/** load_skill for `principal` (the description shows the skills they can load), or none when the agent has no skills. */
export async function skillTools(store: AgentsStore, applications: ApplicationSkills, principal: Principal, target: SkillToolsTarget): Promise<Tool[]> {
  const skills = await skillsFor(store, applications, principal, target)
  const holder = 'skills' in target ? target.holder : 'application' in target ? target.application : target.agent
  if (skills.length === 0) return []
  const listing = skills.map((skill) => `- ${skill.name}: ${skill.description}`).join('\n')
  const loadSkill: Tool<typeof LoadSkillArgs> = {
    name: 'load_skill',
    title: 'Load a skill',
    description: `Returns the instructions of one of ${holder}'s skills. Load a skill when its description matches the task.\n\nSkills:\n${listing}`,
    inputSchema: LoadSkillArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async handler(caller, args) {
      // Read again (unless the transport serves one version it checked on this request): the version may have changed
      // since the tool was listed, and the caller may not be the lister.
      const wanted = normaliseSkillName(args.name)
      const skill = (await skillsFor(store, applications, caller, target)).find((s) => s.name === wanted)
      if (!skill) throw new ToolError('not_found', `${SKILL_NOT_FOUND}: '${args.name}'`)
      const split = splitFrontmatter(skill.content)
      return { name: skill.name, description: skill.description, body: 'code' in split ? skill.content : split.body }
    },
  }
  return [loadSkill as Tool]
}
