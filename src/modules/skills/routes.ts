// Skill routes: POST /api/skill/validate, /api/agents/{name}/skills, GET /api/mcp/list_skills (docs/api.md "Skills").
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import type { AgentsStore } from '../agents/index.ts'
import { applicationSkillRoutes } from './app-routes.ts'
import type { ApplicationSkills } from './home.ts'
import { listAppSkills } from './listing.ts'
import {
  AgentParams,
  ListSkillsQuery,
  NoContent,
  Skill,
  SkillBody,
  SkillList,
  SkillMetadata,
  SkillParams,
  SkillValidationResult,
  ValidateSkillBody,
} from './schema.ts'
import { addSkill, deleteSkill, getSkill, listSkills, replaceSkill } from './service.ts'
import { validateSkill } from './validator/index.ts'

export function skillRoutes(guard: AuthGuard, store: AgentsStore, applications: ApplicationSkills) {
  const tags = ['skills']
  return new Elysia({ name: 'skill-routes' })
    .use(guard)
    .post(
      '/api/skill/validate',
      ({ body }) => {
        const { is_valid, errors, warnings } = validateSkill(body.content, { skillName: body.skill_name })
        return { is_valid, errors, warnings }
      },
      {
        // A read sent as POST: it changes nothing, so it keeps working after the licence lapses.
        auth: { role: 'member', whenLicenseLapsed: 'allowed' },
        body: ValidateSkillBody,
        response: { 200: SkillValidationResult },
        detail: {
          tags,
          summary: 'Validate a SKILL.md against the Agent Skills specification',
          description: 'Problems come back in a 200 (is_valid, errors, warnings), never as HTTP errors. All problems are reported.',
        },
      },
    )
    .post(
      '/api/agents/:name/skills',
      async ({ principal, params, body, set }) => {
        set.status = 201
        return addSkill(store, principal, params.name, body.content)
      },
      {
        auth: 'member',
        params: AgentParams,
        body: SkillBody,
        response: { 201: Skill },
        detail: {
          tags,
          summary: "Add a skill to an agent's draft (owners)",
          description: '422 skill_invalid per validation error; 409 when the agent has a skill of that name.',
          responses: { 403: { description: 'The caller is not an owner of the agent' }, 409: { description: 'The agent has a skill of that name' } },
        },
      },
    )
    .get('/api/agents/:name/skills', ({ principal, params }) => listSkills(store, principal, params.name), {
      auth: 'member',
      params: AgentParams,
      response: { 200: t.Array(SkillMetadata) },
      detail: {
        tags,
        summary: "List the draft's skills without their content (owners)",
        description: 'Viewers read the live skills through /api/mcp/list_skills.',
        responses: { 403: { description: 'The caller is not an owner of the agent' } },
      },
    })
    .get('/api/agents/:name/skills/:skill_name', ({ principal, params }) => getSkill(store, principal, params.name, params.skill_name), {
      auth: 'member',
      params: SkillParams,
      response: { 200: Skill },
      detail: {
        tags,
        summary: "Get one of the draft's skills with its content (owners)",
        responses: { 403: { description: 'The caller is not an owner of the agent' } },
      },
    })
    .put(
      '/api/agents/:name/skills/:skill_name',
      ({ principal, params, body }) => replaceSkill(store, principal, params.name, params.skill_name, body.content),
      {
        auth: 'member',
        params: SkillParams,
        body: SkillBody,
        response: { 200: Skill },
        detail: {
          tags,
          summary: 'Replace a skill (owners); new content may rename it unless the name is taken (409)',
          responses: { 403: { description: 'The caller is not an owner of the agent' }, 409: { description: 'The agent has another skill of that name' } },
        },
      },
    )
    .delete(
      '/api/agents/:name/skills/:skill_name',
      async ({ principal, params, set }) => {
        await deleteSkill(store, principal, params.name, params.skill_name)
        set.status = 204
      },
      {
        auth: 'member',
        params: SkillParams,
        response: { 204: NoContent },
        detail: {
          tags,
          summary: "Remove a skill from an agent's draft (owners)",
          responses: { 403: { description: 'The caller is not an owner of the agent' } },
        },
      },
    )
    .get('/api/mcp/list_skills', ({ principal, query }) => listAppSkills(store.db, applications, principal, query), {
      auth: 'member',
      query: ListSkillsQuery,
      response: { 200: SkillList },
      detail: {
        tags,
        summary: "List an app's skills: for agents the live version's (owners may add version=draft)",
        description: 'detail_level summary: {id, name, description}; full (default): every frontmatter field, id and timestamps, never the body.',
        responses: {
          403: { description: 'version=draft from a caller who is not an owner' },
          404: { description: 'No such app, or not visible to the caller' },
        },
      },
    })
    .use(applicationSkillRoutes(guard, applications))
}
