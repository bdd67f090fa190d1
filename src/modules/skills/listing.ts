// GET /api/mcp/list_skills: the skill metadata an app exposes: for agents the live version's (owners may ask for the
// draft), for MCP apps (applications imported with create_mcp) their own.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import { notFound } from '../../platform/errors.ts'
import { authorizeAgent, OWNERS_ONLY_DESIGN, readDraft, readLive } from '../agents/index.ts'
import type { ApplicationSkills } from './home.ts'
import { skillsOf, toMetadata, toSummary, type SkillMetadataRecord, type SkillSummaryRecord, type StoredSkill } from './records.ts'

export const APP_NOT_FOUND = 'App not found'

export interface ListSkillsQuery {
  genai_app: string
  app_type: 'agent' | 'mcp'
  detail_level?: 'summary' | 'full'
  version?: 'live' | 'draft'
}

export interface SkillList {
  skill_list: (SkillSummaryRecord | SkillMetadataRecord)[]
}

async function agentSkills(db: Kysely<Database>, principal: Principal, name: string, version: 'live' | 'draft'): Promise<StoredSkill[]> {
  if (version === 'draft') {
    const agent = await authorizeAgent(db, name, principal, 'own', OWNERS_ONLY_DESIGN)
    const draft = await readDraft(db, agent.id)
    return draft ? skillsOf(draft) : []
  }
  const agent = await authorizeAgent(db, name, principal, 'use')
  const live = await readLive(db, agent.id)
  // Never published: the agent exists but exposes nothing yet.
  return live ? skillsOf(live.document) : []
}

async function mcpAppSkills(applications: ApplicationSkills, principal: Principal, apiName: string): Promise<StoredSkill[]> {
  // Not an MCP app, or one the caller cannot see: the same 404, so its existence does not leak.
  const skills = await applications.ofMcpApp(principal, apiName)
  if (!skills) throw notFound(APP_NOT_FOUND)
  return skills
}

/**
 * `summary` items are exactly {id, name, description} (what a model needs to choose a skill); `full` items add every
 * other frontmatter field and the timestamps. Neither carries the body: a client fetches that when it uses the skill.
 */
export async function listAppSkills(db: Kysely<Database>, applications: ApplicationSkills, principal: Principal, query: ListSkillsQuery): Promise<SkillList> {
  const skills =
    query.app_type === 'mcp'
      ? await mcpAppSkills(applications, principal, query.genai_app)
      : await agentSkills(db, principal, query.genai_app, query.version ?? 'live')
  const view = (query.detail_level ?? 'full') === 'summary' ? toSummary : toMetadata
  return { skill_list: skills.map(view) }
}
