// GPT apps over HTTP (docs/api.md "GPT apps"): admins create, read, list, rotate and uninstall (`/api/gpts`, the spec's
// `/api/gpt/{genai_app}/uninstall`); the GPT itself calls `/api/gpt_public/apps_list` and `…/app_execute_action` with
// its key, and the builder imports `/api/gpt_public/openapi.json`. The key is checked before the body is validated, so
// a caller without one learns nothing of the body.
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { BEFORE_BODY_KEY, type BeforeBodyCheck } from '../../platform/http/before-body.ts'
import { SECURITY_SCHEMES_KEY, type RouteDescription } from '../../platform/http/openapi-document.ts'
import type { PublicOrigin } from '../../platform/http/public-origin.ts'
import type { GptActions } from './actions.ts'
import { actionsDocument, GPT_BEARER_SCHEME, GPT_KEY_SCHEME, GPT_SECURITY_SCHEMES } from './actions-document.ts'
import { TOO_MANY_KEY_ATTEMPTS, type GptCaller, type GptKeyAuthenticator } from './gpt-keys.ts'
import {
  ActionResult,
  AppsList,
  CreateGptBody,
  ExecuteActionBody,
  GenaiAppParams,
  Gpt,
  GptListQuery,
  GptNameParams,
  GptWithKey,
  Uninstalled,
} from './schema.ts'
import { ACTIONS_SCHEMA_PATH, type GptsService } from './service.ts'

export interface GptsRouteDependencies {
  readonly guard: AuthGuard
  readonly service: GptsService
  readonly actions: GptActions
  readonly keys: GptKeyAuthenticator
  readonly origin: PublicOrigin
  readonly version: string
}

const JSON_HEADERS = { 'content-type': 'application/json' }
const CALLER = Symbol('gpt caller')
type KeyedContext = { request: Request; [CALLER]?: GptCaller }

/**
 * `{ gptKey: true }` on a route: the GPT's key checked before the body is read (401/429 without reading it; the body
 * parser runs the BEFORE_BODY_KEY check) or, for a request without a body, in transform; the caller in `gpt`.
 */
function gptKeyGuard(keys: GptKeyAuthenticator) {
  const callers = new WeakMap<Request, GptCaller>()
  const beforeBody: BeforeBodyCheck = async (request) => {
    callers.set(request, await keys.authenticate(request))
  }
  return new Elysia({ name: 'gpt-key-guard' }).macro({
    gptKey: (_enabled: true) => ({
      detail: {
        security: [{ [GPT_KEY_SCHEME]: [] }, { [GPT_BEARER_SCHEME]: [] }],
        [SECURITY_SCHEMES_KEY]: GPT_SECURITY_SCHEMES,
        [BEFORE_BODY_KEY]: beforeBody,
      },
      async transform(context: KeyedContext) {
        context[CALLER] = callers.get(context.request) ?? (await keys.authenticate(context.request))
      },
      resolve(context: KeyedContext) {
        return { gpt: context[CALLER] as GptCaller }
      },
    }),
  })
}

const KEY_ERRORS = {
  401: { description: 'No key, not a GPT key (user tokens are refused here), or a key that was rotated or whose GPT was uninstalled' },
  429: { description: `${TOO_MANY_KEY_ATTEMPTS}; Retry-After says when` },
}

export function gptsRoutes(deps: GptsRouteDependencies) {
  const { service, origin } = deps
  const tags = ['gpt apps']
  const publicTags = ['gpt actions']

  const actions = new Elysia({ name: 'gpt-actions-routes' })
    .use(gptKeyGuard(deps.keys))
    .get('/api/gpt_public/apps_list', async ({ gpt }) => new Response(await deps.actions.appsList(gpt), { headers: JSON_HEADERS }), {
      gptKey: true,
      response: { 200: AppsList },
      detail: {
        tags: publicTags,
        operationId: 'apps_list',
        summary: 'Your instructions and the actions you can run: call this first in every session',
        description:
          'Answers the instructions to follow and operations_list, every operation app_execute_action can run (api_name, operation_id, method, path, summary, input_schema).',
        responses: KEY_ERRORS,
      },
    })
    .post('/api/gpt_public/app_execute_action', ({ gpt, body }) => deps.actions.execute(gpt, body), {
      gptKey: true,
      body: ExecuteActionBody,
      response: { 200: ActionResult },
      detail: {
        tags: publicTags,
        operationId: 'app_execute_action',
        summary: 'Run one operation of operations_list with its arguments',
        description:
          'Runs it with the organisation’s shared credentials. ok is false when the API answered an error status or could not be reached; error says why.',
        responses: {
          ...KEY_ERRORS,
          400: { description: 'The application uses each user’s own credentials, a credential is missing, or the application has no server URL' },
          402: { description: 'The licence has lapsed: only read-only operations run' },
          403: { description: "api_name is not one of this GPT's applications (decided before anything is looked up)" },
          404: { description: 'No such operation in the application, or no such tool of the agent' },
          409: { description: 'An agent tool refused the call in its current state (a run already decided)' },
          413: { description: 'The request body is larger than 1 MiB, or the request to the API would be' },
        },
      },
    })

  let documents = new Map<string, string>()
  const actionsSchema = (request: Request) => {
    const at = origin(request)
    let text = documents.get(at)
    if (text === undefined) {
      // Behind no AGENTBOX_PUBLIC_URL each Host asked for is an entry: a handful in practice, bounded all the same.
      if (documents.size >= 16) documents = new Map()
      text = JSON.stringify(actionsDocument(actions.routes as unknown as RouteDescription[], at, deps.version))
      documents.set(at, text)
    }
    return text
  }

  return (
    new Elysia({ name: 'gpts-routes' })
      .use(deps.guard)
      .post(
        '/api/gpts',
        async ({ principal, body, request, set }) => {
          set.status = 201
          return service.create(principal, body, origin(request))
        },
        {
          auth: 'admin',
          body: CreateGptBody,
          response: { 201: GptWithKey },
          detail: {
            tags,
            summary: 'Connect a custom GPT: its record and, this once, its key',
            description:
              'The key (abx_gpt_…) is stored only as a hash: copy it now. Applications and the agent must exist (422 naming each one that does not).',
            responses: { 409: { description: 'An installed GPT has that name' } },
          },
        },
      )
      .get('/api/gpts/list', ({ principal, query, request }) => service.list(principal, query, origin(request)), {
        auth: 'member',
        query: GptListQuery,
        response: { 200: t.Array(Gpt) },
        detail: {
          tags,
          summary: 'Installed GPTs, by name',
          description: 'Admins see every installed GPT; members the public ones and the private ones they installed. Uninstalled GPTs are not listed.',
        },
      })
      .get('/api/gpts/:name', ({ principal, params, request }) => service.get(principal, params.name, origin(request)), {
        auth: 'member',
        params: GptNameParams,
        response: { 200: Gpt },
        detail: {
          tags,
          summary: 'A GPT app (no key)',
          description:
            'The installed GPT of that name, else (admins) its latest uninstalled record with installed false. Members see what the list shows them.',
        },
      })
      .post('/api/gpts/:name/rotate_key', ({ principal, params, request }) => service.rotateKey(principal, params.name, origin(request)), {
        auth: 'admin',
        params: GptNameParams,
        response: { 200: GptWithKey },
        detail: {
          tags,
          summary: 'Give a GPT a new key, shown this once; the old one stops working at once',
          responses: { 409: { description: 'The GPT is uninstalled' } },
        },
      })
      .post('/api/gpt/:genai_app/uninstall', ({ principal, params }) => service.uninstall(principal, params.genai_app), {
        auth: { role: 'admin', whenLicenseLapsed: 'allowed' },
        params: GenaiAppParams,
        response: { 200: Uninstalled },
        detail: {
          tags,
          summary: 'Uninstall a GPT: its key stops working at once; the record is kept but no longer listed',
          responses: { 409: { description: 'The GPT is already uninstalled' } },
        },
      })
      .use(actions)
      // Not kept by caches: without AGENTBOX_PUBLIC_URL the server URL follows the Host asked.
      .get(ACTIONS_SCHEMA_PATH, ({ request }) => new Response(actionsSchema(request), { headers: { ...JSON_HEADERS, 'cache-control': 'no-store' } }), {
        detail: {
          tags: publicTags,
          security: [],
          summary: 'The Actions schema to import in the GPT builder (OpenAPI 3.1, x-api-key)',
          description: 'The two actions a GPT calls, generated from the same schemas as these routes; the server is AGENTBOX_PUBLIC_URL or the origin asked.',
          responses: { 200: { description: 'An OpenAPI 3.1.0 document', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      })
  )
}
