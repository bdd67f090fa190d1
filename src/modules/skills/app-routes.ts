// /api/applications/{api_name}/skills: an MCP app's skills, managed like an agent's (docs/api.md "Skills"). Whoever
// sees the application reads them; its owner or an admin changes them.
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import type { ApplicationSkills } from './home.ts'
import { NoContent, Skill, SkillBody, SkillMetadata } from './schema.ts'
import { addSkillTo, deleteSkillFrom, getSkillOf, listSkillsOf, replaceSkillIn } from './service.ts'

const AppParams = t.Object({ api_name: t.String() })
const AppSkillParams = t.Object({ api_name: t.String(), skill_name: t.String() })
const NOT_OWNER = { 403: { description: 'The caller sees the application but is neither its owner nor an admin' } }

export function applicationSkillRoutes(guard: AuthGuard, skills: ApplicationSkills) {
  const tags = ['skills']
  return new Elysia({ name: 'application-skill-routes' })
    .use(guard)
    .post(
      '/api/applications/:api_name/skills',
      async ({ principal, params, body, set }) => {
        set.status = 201
        return addSkillTo(skills.home(params.api_name), principal, body.content)
      },
      {
        auth: 'member',
        params: AppParams,
        body: SkillBody,
        response: { 201: Skill },
        detail: {
          tags,
          summary: "Add a skill to an application's MCP app (owner or admin)",
          description: '422 skill_invalid per validation error; 409 when the application has a skill of that name. Served by /app/{api_name}/mcp.',
          responses: { ...NOT_OWNER, 409: { description: 'The application has a skill of that name' } },
        },
      },
    )
    .get('/api/applications/:api_name/skills', ({ principal, params }) => listSkillsOf(skills.home(params.api_name), principal), {
      auth: 'member',
      params: AppParams,
      response: { 200: t.Array(SkillMetadata) },
      detail: { tags, summary: "List an application's skills without their content" },
    })
    .get('/api/applications/:api_name/skills/:skill_name', ({ principal, params }) => getSkillOf(skills.home(params.api_name), principal, params.skill_name), {
      auth: 'member',
      params: AppSkillParams,
      response: { 200: Skill },
      detail: { tags, summary: "Get one of an application's skills with its content" },
    })
    .put(
      '/api/applications/:api_name/skills/:skill_name',
      ({ principal, params, body }) => replaceSkillIn(skills.home(params.api_name), principal, params.skill_name, body.content),
      {
        auth: 'member',
        params: AppSkillParams,
        body: SkillBody,
        response: { 200: Skill },
        detail: {
          tags,
          summary: "Replace an application's skill (owner or admin); new content may rename it unless the name is taken (409)",
          responses: { ...NOT_OWNER, 409: { description: 'The application has another skill of that name' } },
        },
      },
    )
    .delete(
      '/api/applications/:api_name/skills/:skill_name',
      async ({ principal, params, set }) => {
        await deleteSkillFrom(skills.home(params.api_name), principal, params.skill_name)
        set.status = 204
      },
      {
        auth: 'member',
        params: AppSkillParams,
        response: { 204: NoContent },
        detail: { tags, summary: "Remove an application's skill (owner or admin)", responses: NOT_OWNER },
      },
    )
}
