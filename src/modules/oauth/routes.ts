// The authorization server's HTTP face: metadata (RFC 9728, RFC 8414), registration (RFC 7591), authorize, token,
// revocation (RFC 7009), and the console's consent and connected-clients API (docs/api.md "OAuth for MCP clients").
import type { PublicOrigin } from '../../platform/http/public-origin.ts'
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { toOpenApiSchema } from '../../platform/http/openapi-schema.ts'
import { requestContext } from '../../platform/http/request-context.ts'
import type { AuthorizeParams } from './authorization.ts'
import { authorizeErrorPage } from './error-page.ts'
import { OauthError } from './errors.ts'
import { readOauthBody } from './request-body.ts'
import { authorizationServerMetadata, PROTECTED_RESOURCE_METADATA_PATH, protectedResourceMetadata } from './resources.ts'
import {
  AuthorizationRequest,
  AuthorizationServerMetadata,
  DecideBody,
  DecideResponse,
  Grant,
  OauthErrorBody,
  ProtectedResourceMetadata,
  RegisterClientBody,
  RegisteredClient,
  RevokeRequest,
  TokenRequest,
  TokenResponse,
} from './schema.ts'
import type { OauthService } from './service.ts'

/** Browser-based MCP clients read the metadata and call these endpoints from another origin; no cookie is involved. */
const CORS = { 'access-control-allow-origin': '*' }
const PREFLIGHT = {
  ...CORS,
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
  'access-control-max-age': '86400',
}
/** RFC 6749 §5.1: token responses (and errors next to them) are never cached. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }
const hidden = { detail: { hide: true } }

const json = (body: unknown, status: number, headers: Record<string, string>) => Response.json(body, { status, headers })

/** Runs an OAuth endpoint's work; an OauthError becomes RFC 6749's `{error, error_description}` with its status. */
async function oauthAnswer(work: () => Promise<unknown>, status = 200): Promise<Response> {
  try {
    const body = await work()
    return body === undefined ? new Response(null, { status, headers: { ...CORS, ...NO_STORE } }) : json(body, status, { ...CORS, ...NO_STORE })
  } catch (error) {
    if (error instanceof OauthError) return json(error.toJSON(), error.status, { ...CORS, ...NO_STORE, ...error.headers })
    throw error
  }
}

/** A schema as the document publishes it, typed as OpenAPI's schema object for `detail`. */
const published = (schema: unknown) => toOpenApiSchema(schema) as Record<string, unknown>
const oauthError = (description: string) => ({ description, content: { 'application/json': { schema: published(OauthErrorBody) } } })
const formOrJson = (schema: unknown) => ({
  required: true,
  content: {
    'application/x-www-form-urlencoded': { schema: published(schema) },
    'application/json': { schema: published(schema) },
  },
})

const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'state', 'scope', 'resource'] as const

function authorizeParams(request: Request): AuthorizeParams {
  const query = new URL(request.url).searchParams
  const params: Record<string, string> = {}
  for (const name of AUTHORIZE_PARAMS) {
    const value = query.get(name)
    if (value !== null) params[name] = value
  }
  return params
}

/**
 * `originOf`: the issuer, AGENTBOX_PUBLIC_URL or the origin the request came to (platform/http/public-origin.ts).
 * `fixedIssuer`: AGENTBOX_PUBLIC_URL is set. When it is not, the metadata names whatever Host the request carried, so
 * no cache may keep one client's answer for another (`Cache-Control: no-store`).
 */
export function oauthRoutes(service: OauthService, originOf: PublicOrigin, fixedIssuer: boolean) {
  const tags = ['oauth']
  const metadataHeaders = fixedIssuer ? CORS : { ...CORS, 'cache-control': 'no-store' }
  const metadata = (summary: string) => ({ response: { 200: ProtectedResourceMetadata }, detail: { tags, summary, security: [] } })
  const prm = ({ request }: { request: Request }) => {
    const url = new URL(request.url)
    return json(protectedResourceMetadata(originOf(request), url.pathname.slice(PROTECTED_RESOURCE_METADATA_PATH.length)), 200, metadataHeaders)
  }
  const routes = new Elysia({ name: 'oauth-routes' })
    .get(PROTECTED_RESOURCE_METADATA_PATH, prm, metadata('Protected-resource metadata of the instance (RFC 9728)'))
    .get(`${PROTECTED_RESOURCE_METADATA_PATH}/agent/:name/mcp`, prm, metadata("Protected-resource metadata of an agent's MCP endpoint (RFC 9728)"))
    .get(`${PROTECTED_RESOURCE_METADATA_PATH}/agent/:name/design/mcp`, prm, metadata("Protected-resource metadata of an agent's design MCP endpoint"))
    .get(`${PROTECTED_RESOURCE_METADATA_PATH}/app/:api_name/mcp`, prm, metadata("Protected-resource metadata of an application's MCP endpoint"))
    .get(`${PROTECTED_RESOURCE_METADATA_PATH}/mcp/gateway`, prm, metadata('Protected-resource metadata of the MCP gateway (RFC 9728)'))
    .get('/.well-known/oauth-authorization-server', ({ request }) => json(authorizationServerMetadata(originOf(request)), 200, metadataHeaders), {
      response: { 200: AuthorizationServerMetadata },
      detail: {
        tags,
        summary: 'Authorization-server metadata (RFC 8414); the issuer is AGENTBOX_PUBLIC_URL, else the origin the request came to (then not cacheable)',
        security: [],
      },
    })
    .post(
      '/oauth/register',
      ({ request }) =>
        oauthAnswer(
          async () => service.register(await readOauthBody(request, 'invalid_client_metadata', false), requestContext(request)?.clientAddress ?? 'unknown'),
          201,
        ),
      {
        response: { 201: RegisteredClient },
        detail: {
          tags,
          summary: 'Register a public client (RFC 7591 dynamic client registration)',
          description:
            'Anonymous. token_endpoint_auth_method is always none: clients use PKCE. Redirect URIs are matched exactly later. At most 20 registrations per client address (IPv6: per /64) in an hour; a registration with no grant and no pending authorization an hour after it was made is removed.',
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema: published(RegisterClientBody) } } },
          responses: {
            400: oauthError('invalid_redirect_uri or invalid_client_metadata'),
            429: oauthError('temporarily_unavailable: too many registrations from this address in the last hour; Retry-After says when'),
            503: oauthError('temporarily_unavailable: the registration cap is reached'),
          },
        },
      },
    )
    // A browser endpoint: its answers are redirects and an HTML page, so it is described in docs/api.md, not in the
    // JSON API's document.
    .get(
      '/oauth/authorize',
      async ({ request }) => {
        const outcome = await service.authorize(authorizeParams(request), originOf(request))
        if (outcome.kind === 'error_page') return authorizeErrorPage(outcome.message)
        return new Response(null, { status: 302, headers: { location: outcome.location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } })
      },
      hidden,
    )
    .post('/oauth/token', ({ request }) => oauthAnswer(async () => service.token(await readOauthBody(request, 'invalid_request', true), originOf(request))), {
      response: { 200: TokenResponse },
      detail: {
        tags,
        summary: 'Exchange an authorization code (PKCE S256) or a refresh token (rotated) for tokens',
        description: 'Form-encoded (or JSON). Errors are RFC 6749 §5.2 bodies. A replayed code or an old refresh token revokes the grant.',
        security: [],
        requestBody: formOrJson(TokenRequest),
        responses: {
          400: oauthError('invalid_request, invalid_grant, unsupported_grant_type or invalid_target'),
          401: oauthError('invalid_client: unknown client_id'),
        },
      },
    })
    .post('/oauth/revoke', ({ request }) => oauthAnswer(async () => service.revokeToken(await readOauthBody(request, 'invalid_request', true))), {
      response: { 200: t.Undefined({ description: 'No content' }) },
      detail: {
        tags,
        summary: 'Revoke a token (RFC 7009): a refresh token ends its grant, an access token only itself',
        description: 'Answers 200 whether or not the token was known.',
        security: [],
        requestBody: formOrJson(RevokeRequest),
        responses: { 400: oauthError('invalid_request: no token') },
      },
    })
  for (const path of [PROTECTED_RESOURCE_METADATA_PATH, '/.well-known/oauth-authorization-server', '/oauth/register', '/oauth/token', '/oauth/revoke'])
    routes.options(path, () => new Response(null, { status: 204, headers: PREFLIGHT }), hidden)
  return routes
}

/** The console's side: the consent page reads and decides a request; the connected-clients page lists and revokes grants. */
export function oauthApiRoutes(guard: AuthGuard, service: OauthService) {
  const tags = ['oauth']
  const RequestParams = t.Object({ id: t.String({ maxLength: 100 }) })
  return new Elysia({ name: 'oauth-api-routes' })
    .use(guard)
    .get('/api/oauth/requests/:id', ({ principal, params }) => service.authorizationRequest(principal, params.id), {
      auth: 'member',
      params: RequestParams,
      response: { 200: AuthorizationRequest },
      detail: {
        tags,
        summary: 'A pending authorization request, for the consent page',
        responses: {
          403: { description: 'The organisation token cannot consent' },
          404: { description: 'Unknown or expired request' },
          409: { description: 'The request was already decided' },
        },
      },
    })
    .post('/api/oauth/requests/:id', ({ principal, params, body }) => service.decideAuthorizationRequest(principal, params.id, body.approve), {
      auth: 'member',
      params: RequestParams,
      body: DecideBody,
      response: { 200: DecideResponse },
      detail: {
        tags,
        summary: 'Approve or deny an authorization request; answers where to send the browser',
        description: 'Approving mints a one-time code (60 s) bound to the client, redirect URI, PKCE challenge, resource and caller.',
        responses: {
          403: { description: 'The organisation token cannot consent' },
          404: { description: 'Unknown or expired request' },
          409: { description: 'The request was already decided' },
        },
      },
    })
    .get('/api/oauth/grants', ({ principal }) => service.listGrants(principal), {
      auth: 'member',
      response: { 200: t.Array(Grant) },
      detail: { tags, summary: 'Your connected MCP clients (live grants), newest first' },
    })
    .delete(
      '/api/oauth/grants/:id',
      async ({ principal, params, set }) => {
        await service.revokeGrant(principal, params.id)
        set.status = 204
      },
      {
        auth: { role: 'member', whenLicenseLapsed: 'allowed' },
        params: t.Object({ id: t.String() }),
        response: { 204: t.Undefined({ description: 'No content' }) },
        detail: { tags, summary: 'Disconnect a client: revoke the grant and its tokens at once', responses: { 404: { description: 'Grant not found' } } },
      },
    )
}
