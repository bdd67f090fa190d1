// Application routes (docs/api.md "Applications"): import from an API description, browse operations and scopes,
// connect credentials, and execute operations through the guarded outbound client.
import type { PublicOrigin } from '../../platform/http/public-origin.ts'
import { Elysia, t } from 'elysia'
import { checkedJson } from '../../platform/http/checked-json.ts'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import type { ApplicationCredentials } from './credentials.ts'
import type { ExecuteResult as ExecuteResultValue, OperationExecutor } from './execute.ts'
import {
  ApiNameParams,
  Application,
  ApplicationListQuery,
  ApplicationPatch,
  AvailableScope,
  CredentialBody,
  CredentialEntry,
  CredentialParams,
  ExecuteBody,
  ExecuteResult,
  ImportResult,
  NoContent,
  Operation,
  OperationListQuery,
  OperationParams,
  SpecUploadBody,
} from './schema.ts'
import type { ApplicationsService } from './service.ts'
import { inflatedStream, type StoredDocument } from './source-document.ts'

export const SPEC_UPLOAD_PATH = '/api/spec_from_file/'
/** API descriptions reach 13 MB (GitHub's); every other upload stops at 10 MiB. */
export const SPEC_UPLOAD_LIMIT = 32 * 1024 * 1024

/** RFC 6266 / 8187: an ASCII fallback and the exact name, percent-encoded. */
function contentDisposition(filename: string | null): string {
  if (!filename) return 'inline'
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `inline; filename="${fallback}"; filename*=UTF-8''${exact}`
}

/** The stored (gzip) bytes as they are when the client takes gzip, else decompressed as they are sent. */
function documentResponse(document: StoredDocument, request: Request): Response {
  const headers: Record<string, string> = {
    'content-type': document.media_type,
    'content-disposition': contentDisposition(document.filename),
    etag: `"${document.sha256}"`,
    'cache-control': 'private, no-cache',
    vary: 'Accept-Encoding',
    'x-content-type-options': 'nosniff',
  }
  if (/\bgzip\b/i.test(request.headers.get('accept-encoding') ?? ''))
    return new Response(document.content as Uint8Array<ArrayBuffer>, { headers: { ...headers, 'content-encoding': 'gzip' } })
  return new Response(inflatedStream(document.content), { headers })
}

/** The execute envelope is built with exactly the schema's fields: checked, then sent without Elysia's Encode/Clean. */
const executeAnswer = checkedJson<ExecuteResultValue>(ExecuteResult)

const NOT_VISIBLE = { 404: { description: 'No such application, or it is not visible to the caller' } }

export function applicationRoutes(
  guard: AuthGuard,
  service: ApplicationsService,
  credentials: ApplicationCredentials,
  executor: OperationExecutor,
  originOf: PublicOrigin,
) {
  const tags = ['applications']
  return new Elysia({ name: 'application-routes' })
    .use(guard)
    .post(
      SPEC_UPLOAD_PATH,
      async ({ principal, body, request, set }) => {
        const { file, ...form } = body
        const result = await service.importDocument(principal, { ...form, document: file }, originOf(request))
        set.status = 201
        return result
      },
      {
        auth: 'member',
        body: SpecUploadBody,
        response: { 201: ImportResult },
        detail: {
          tags,
          summary: 'Create an application from an API description (multipart)',
          description:
            'OpenAPI 3.0/3.1 or Swagger 2.0, JSON or YAML, at most 32 MiB. Internal $refs are resolved (cycles allowed); external ones are refused. ' +
            'A document that cannot be imported is a 422 on ["body","file"] of type spec_invalid with ctx.pointer; problems that do not stop the import come back as warnings.',
          responses: {
            403: { description: 'A member asked for global_spec, or is not the owner of the application to replace' },
            409: { description: 'The api_name is taken and replace was not sent' },
          },
        },
      },
    )
    .get('/api/spec/:api_name/available_scopes', ({ principal, params }) => service.availableScopes(principal, params.api_name), {
      auth: 'member',
      params: ApiNameParams,
      response: { 200: t.Array(AvailableScope) },
      detail: { tags, summary: "The OAuth2 / OpenID Connect scopes an application's document declares or requires, sorted by scope", responses: NOT_VISIBLE },
    })
    .get('/api/applications', ({ principal, query, request }) => service.list(principal, query, originOf(request)), {
      auth: 'member',
      query: ApplicationListQuery,
      response: { 200: t.Array(Application) },
      detail: { tags, summary: 'Applications visible to the caller (global ones, their own; admins all), by name' },
    })
    .get('/api/applications/:api_name', ({ principal, params, request }) => service.get(principal, params.api_name, originOf(request)), {
      auth: 'member',
      params: ApiNameParams,
      response: { 200: Application },
      detail: { tags, summary: 'One application', responses: NOT_VISIBLE },
    })
    .patch('/api/applications/:api_name', ({ principal, params, body, request }) => service.update(principal, params.api_name, body, originOf(request)), {
      auth: 'member',
      params: ApiNameParams,
      body: ApplicationPatch,
      response: { 200: Application },
      detail: {
        tags,
        summary: "Change an application's title, description, base_url or metadata (owner or admin)",
        description: 'A base_url naming a loopback, private or link-local address is refused unless the outbound allow list opens it.',
        responses: { 403: { description: 'The caller is not the owner or an admin' }, ...NOT_VISIBLE },
      },
    })
    .delete(
      '/api/applications/:api_name',
      async ({ principal, params, set }) => {
        await service.delete(principal, params.api_name)
        set.status = 204
      },
      {
        auth: 'member',
        params: ApiNameParams,
        response: { 204: NoContent },
        detail: {
          tags,
          summary: 'Delete an application with its operations and credentials (owner or admin)',
          responses: { 403: { description: 'The caller is not the owner or an admin' }, ...NOT_VISIBLE },
        },
      },
    )
    .get(
      '/api/applications/:api_name/document',
      async ({ principal, params, request }) => documentResponse(await service.document(principal, params.api_name), request),
      {
        auth: 'member',
        params: ApiNameParams,
        detail: {
          tags,
          summary: "The API description the application's current revision was imported from, as uploaded",
          description:
            'Answered with its original media type, its file name in Content-Disposition and its SHA-256 as the ETag. Sent gzip-encoded as stored when the request accepts gzip. ' +
            'Applications imported before documents were kept answer 404 until their next re-import (replace=true).',
          responses: {
            200: {
              description: 'The document as uploaded (JSON or YAML, in its original media type)',
              headers: {
                ETag: { description: 'The SHA-256 (hex) of the document as uploaded, quoted', schema: { type: 'string' } },
                'Content-Disposition': { description: 'inline, with the uploaded file name when there was one', schema: { type: 'string' } },
              },
              content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
            },
            404: { description: 'No such application, it is not visible to the caller, or it was imported before its document was kept' },
          },
        },
      },
    )
    .get(
      '/api/applications/:api_name/operations',
      // Already JSON: a Response is sent as it is (the schema below documents it).
      async ({ principal, params, query }) =>
        new Response(await service.operations(principal, params.api_name, query), { headers: { 'content-type': 'application/json' } }),
      {
        auth: 'member',
        params: ApiNameParams,
        query: OperationListQuery,
        response: { 200: t.Array(Operation) },
        detail: {
          tags,
          summary: "An application's operations in document order, with their input schemas: 100 a page unless limit says (at most 500)",
          responses: NOT_VISIBLE,
        },
      },
    )
    .get(
      '/api/applications/:api_name/operations/:operation_id',
      ({ principal, params }) => service.operation(principal, params.api_name, params.operation_id),
      {
        auth: 'member',
        params: OperationParams,
        response: { 200: Operation },
        detail: { tags, summary: 'One operation', responses: { 404: { description: 'No such application or operation' } } },
      },
    )
    .post(
      '/api/applications/:api_name/operations/:operation_id/execute',
      async ({ principal, params, body }) => executeAnswer(await executor.execute(principal, params.api_name, params.operation_id, body)),
      {
        auth: 'member',
        params: OperationParams,
        body: ExecuteBody,
        response: { 200: ExecuteResult },
        detail: {
          tags,
          summary: "Call an operation with the caller's credential (or the organisation's), or dry-run it",
          description:
            'The answer carries the upstream status, filtered headers and body. Arguments are checked first (422 under ["body","arguments"]). ' +
            'Destinations on loopback, private, link-local and similar addresses are refused (502 "Destination not allowed") unless allowed.',
          responses: {
            400: {
              description:
                'No credential for a scheme the operation needs (or it cannot be opened, or its OAuth 2 refresh was refused), or the application has no server URL',
            },
            404: { description: 'No such application or operation' },
            413: { description: 'The request to the API would be larger than 1 MiB' },
            502: { description: 'The API (or the OAuth 2 token endpoint refreshing its credential) is unreachable, or the destination is not allowed' },
            504: { description: 'The API did not answer within 30 s' },
          },
        },
      },
    )
    .get('/api/applications/:api_name/credentials', ({ principal, params }) => credentials.list(principal, params.api_name), {
      auth: 'member',
      params: ApiNameParams,
      response: { 200: t.Array(CredentialEntry) },
      detail: { tags, summary: 'Whether each security scheme is connected for the caller (or the organisation); never a secret', responses: NOT_VISIBLE },
    })
    .put('/api/applications/:api_name/credentials', ({ principal, params, body }) => credentials.put(principal, params.api_name, body), {
      auth: 'member',
      params: ApiNameParams,
      body: CredentialBody,
      response: { 200: CredentialEntry },
      detail: {
        tags,
        summary: "Connect the caller's credential for a security scheme (the organisation's for shared applications: admins)",
        description:
          'basic takes username and password, bearer a token, api_key an api_key; any other field is a 422. OAuth 2 and OpenID Connect schemes also take ' +
          'expires_in and refresh_token with token_url, client_id and client_secret: a token within a minute of expiring is refreshed before a call. ' +
          'Secrets are encrypted at rest and never returned.',
        responses: { 403: { description: "A member setting a shared application's credential" }, ...NOT_VISIBLE },
      },
    })
    .delete(
      '/api/applications/:api_name/credentials/:scheme',
      async ({ principal, params, set }) => {
        await credentials.clear(principal, params.api_name, params.scheme)
        set.status = 204
      },
      {
        auth: 'member',
        params: CredentialParams,
        response: { 204: NoContent },
        detail: {
          tags,
          summary: "Clear the caller's credential for a scheme (the organisation's for shared applications: admins)",
          responses: {
            403: { description: "A member clearing a shared application's credential" },
            404: { description: 'No such application or security scheme' },
          },
        },
      },
    )
}
