// UI template routes (docs/api.md "UI templates"): templates of an operation, the application's repository, and push /
// pull of one template or all of them.
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { HttpError } from '../../platform/http/http-error.ts'
import type { RepositoryService } from './repository.ts'
import {
  ApplicationSyncResult,
  CreateTemplateBody,
  NoContent,
  OperationTemplatesParams,
  Repository,
  RepositoryBody,
  RepositoryParams,
  SyncBody,
  SyncResult,
  Template,
  TemplateList,
  TEMPLATE_BODY_LIMIT,
  TemplateParams,
  UpdateTemplateBody,
} from './schema.ts'
import type { SyncService } from './sync.ts'
import type { TemplatesService } from './templates.ts'

/**
 * `POST …/vcs/sync/{api_name}/` (an empty template id) must not widen a one-template sync to every template: the
 * all-templates route refuses the trailing slash (404, like any unknown id), before the body is read.
 */
function exactPath({ request }: { request: Request }) {
  if (new URL(request.url).pathname.endsWith('/')) throw new HttpError(404, 'Not Found')
}

// The two routes that take a template's HTML: POST …/operations/{operation_id} and PUT …/templates/{template_id}.
const CREATE_PATH = /^\/api\/ui-templates\/[^/]+\/operations\/[^/]+\/?$/
const CHANGE_PATH = /^\/api\/ui-templates\/[^/]+\/templates\/[^/]+\/?$/

/** The body cap of a request to these routes (BodyLimits.largeJson): room for the largest template, however escaped. */
export function templateBodyLimit(method: string, path: string): number | undefined {
  if ((method === 'POST' && CREATE_PATH.test(path)) || (method === 'PUT' && CHANGE_PATH.test(path))) return TEMPLATE_BODY_LIMIT
  return undefined
}

const NOT_VISIBLE = { 404: { description: 'No such application (or operation, or template), or the application is not visible to the caller' } }
const WRITERS = { 403: { description: 'The caller sees the application but is not its owner or an admin' } }

export function uiTemplateRoutes(guard: AuthGuard, templates: TemplatesService, repositories: RepositoryService, sync: SyncService) {
  const tags = ['ui-templates']
  return new Elysia({ name: 'ui-template-routes' })
    .use(guard)
    .post(
      '/api/ui-templates/:api_name/operations/:operation_id',
      async ({ principal, params, body, set }) => {
        const created = await templates.create(principal, params.api_name, params.operation_id, body)
        set.status = 201
        return created
      },
      {
        auth: 'member',
        params: OperationTemplatesParams,
        body: CreateTemplateBody,
        response: { 201: Template },
        detail: {
          tags,
          summary: 'Attach a UI template (an MCP App) to an operation (owner or admin)',
          description:
            'html is at most 1 MiB of UTF-8 (422 on body.html past it); the body may be up to 7 MiB, room for the largest template however its ' +
            'JSON escapes it (413 past it). template_format is only "mcp-app"; type defaults to "result". ' +
            "is_default true makes it the template the operation's tool points at and clears the operation's other default.",
          responses: { ...WRITERS, ...NOT_VISIBLE, 409: { description: 'The operation already has 50 templates' } },
        },
      },
    )
    .get('/api/ui-templates/:api_name/operations/:operation_id', ({ principal, params }) => templates.list(principal, params.api_name, params.operation_id), {
      auth: 'member',
      params: OperationTemplatesParams,
      response: { 200: TemplateList },
      detail: { tags, summary: "An operation's UI templates, the default first (whoever sees the application)", responses: NOT_VISIBLE },
    })
    .get('/api/ui-templates/:api_name/templates/:template_id', ({ principal, params }) => templates.get(principal, params.api_name, params.template_id), {
      auth: 'member',
      params: TemplateParams,
      response: { 200: Template },
      detail: { tags, summary: 'One UI template', responses: NOT_VISIBLE },
    })
    .put(
      '/api/ui-templates/:api_name/templates/:template_id',
      ({ principal, params, body }) => templates.update(principal, params.api_name, params.template_id, body),
      {
        auth: 'member',
        params: TemplateParams,
        body: UpdateTemplateBody,
        response: { 200: Template },
        detail: {
          tags,
          summary: 'Change a UI template: the fields given replace theirs (owner or admin)',
          description: 'html as on create: at most 1 MiB of UTF-8 (422), in a body of at most 7 MiB (413).',
          responses: { ...WRITERS, ...NOT_VISIBLE },
        },
      },
    )
    .delete(
      '/api/ui-templates/:api_name/templates/:template_id',
      async ({ principal, params, set }) => {
        await templates.delete(principal, params.api_name, params.template_id)
        set.status = 204
      },
      {
        auth: 'member',
        params: TemplateParams,
        response: { 204: NoContent },
        detail: { tags, summary: 'Delete a UI template (owner or admin); its files stay in the repository', responses: { ...WRITERS, ...NOT_VISIBLE } },
      },
    )
    .get('/api/ui-templates/vcs/:api_name', ({ principal, params }) => repositories.get(principal, params.api_name), {
      auth: 'member',
      params: RepositoryParams,
      response: { 200: Repository },
      detail: { tags, summary: "The application's template repository, never its token (whoever sees the application)", responses: NOT_VISIBLE },
    })
    .put('/api/ui-templates/vcs/:api_name', ({ principal, params, body }) => repositories.put(principal, params.api_name, body), {
      auth: 'member',
      params: RepositoryParams,
      body: RepositoryBody,
      response: { 200: Repository },
      detail: {
        tags,
        summary: "Set the application's template repository (owner or admin)",
        description:
          'The token is sent as the HTTP Basic password and kept sealed; it is never returned or logged. A repo_url naming a loopback, private or ' +
          'link-local address is refused unless the outbound allow list opens it. A new URL, branch or path forgets what earlier syncs saw.',
        responses: { ...WRITERS, ...NOT_VISIBLE },
      },
    })
    .delete(
      '/api/ui-templates/vcs/:api_name',
      async ({ principal, params, set }) => {
        await repositories.delete(principal, params.api_name)
        set.status = 204
      },
      {
        auth: 'member',
        params: RepositoryParams,
        response: { 204: NoContent },
        detail: { tags, summary: 'Forget the repository, its token and the local clone (owner or admin)', responses: { ...WRITERS, ...NOT_VISIBLE } },
      },
    )
    .post(
      '/api/ui-templates/vcs/sync/:api_name/:template_id',
      ({ principal, params, body }) => sync.syncTemplate(principal, params.api_name, params.template_id, body),
      {
        auth: 'member',
        params: TemplateParams,
        body: SyncBody,
        response: { 200: SyncResult },
        detail: {
          tags,
          summary: 'Push a UI template to the repository, or pull it from there (owner or admin)',
          description:
            'File layout: <path>/<api_name>/<operation_id>/<template_id>.html and .json. A conflict (both sides changed since the last sync) changes ' +
            'nothing and answers has_conflict true; an unreachable repository, refused credentials or a file missing on pull answer success false.',
          responses: { ...WRITERS, ...NOT_VISIBLE, 409: { description: 'No repository is configured for the application' } },
        },
      },
    )
    .post('/api/ui-templates/vcs/sync/:api_name', ({ principal, params, body }) => sync.syncApplication(principal, params.api_name, body), {
      auth: 'member',
      transform: exactPath,
      params: RepositoryParams,
      body: SyncBody,
      response: { 200: ApplicationSyncResult },
      detail: {
        tags,
        summary: "Push or pull every UI template of the application in one commit, with each template's result (owner or admin)",
        responses: { ...WRITERS, ...NOT_VISIBLE, 409: { description: 'No repository is configured for the application' } },
      },
    })
    .get('/api/ui-templates/:api_name', ({ principal, params }) => templates.listOfApplication(principal, params.api_name), {
      auth: 'member',
      params: RepositoryParams,
      response: { 200: t.Object({ templates: t.Array(t.Omit(Template, ['html'])) }) },
      detail: { tags, summary: 'Every UI template of an application, without its HTML, by operation (whoever sees the application)', responses: NOT_VISIBLE },
    })
}
