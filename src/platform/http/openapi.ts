// GET /api/openapi.json and GET /api/docs: the OpenAPI 3.1.0 document generated from the validating schemas, and Swagger UI served from the binary.
import { toOpenAPISchema } from '@elysiajs/openapi'
import { Elysia, type AnyElysia } from 'elysia'
import swaggerBundlePath from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import swaggerCssPath from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }

type JsonObject = Record<string, unknown>
type Operation = { requestBody?: { content?: JsonObject; required?: boolean }; responses?: JsonObject; parameters?: unknown[] }

const VALIDATION_ERROR_SCHEMA = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        required: ['loc', 'msg', 'type'],
        properties: {
          loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
          msg: { type: 'string' },
          type: { type: 'string' },
          input: {},
          ctx: { type: 'object' },
        },
      },
    },
  },
}
const ERROR_SCHEMA = { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } }

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

/**
 * The plugin leaves `requestBody.content` empty for routes parsed by a custom parser (ours, which enforces
 * the size limits), so the body schema is put back from the route itself; the error shapes of CONTRACT §0 are added.
 */
function completeDocument(app: AnyElysia, version: string): JsonObject {
  const generated = toOpenAPISchema(app, { paths: ['/api/openapi.json', '/api/docs', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css'] }, undefined, undefined, '3.1.0') as {
    paths: Record<string, Record<string, Operation>>
    components: JsonObject
  }
  for (const route of app.routes) {
    const operation = generated.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()]
    if (!operation) continue
    const body = (route.hooks as { body?: unknown }).body
    if (body && operation.requestBody && Object.keys(operation.requestBody.content ?? {}).length === 0) {
      operation.requestBody.content = { 'application/json': { schema: JSON.parse(JSON.stringify(body)) } }
    }
    operation.responses ??= {}
    if (body || operation.parameters?.length) {
      operation.responses['422'] ??= { description: 'Validation error', content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } } }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agentbox',
      version: '1.0.0',
      description: `The Agentbox agent platform API (server ${version}). Errors are FastAPI-shaped: \`{"detail": …}\`.`,
    },
    security: [{ bearer: [] }],
    paths: generated.paths,
    components: {
      ...generated.components,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An access token from /api/auth/login, or an abx_ API token' } },
      schemas: { ...(generated.components.schemas as JsonObject), HTTPValidationError: VALIDATION_ERROR_SCHEMA, HTTPError: ERROR_SCHEMA },
    },
  }
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agentbox API reference</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true })</script>
</body>
</html>`

/** `app` is the whole application, read lazily on the first request so every module's routes are in the document. */
export function openApiRoutes(app: () => AnyElysia, version: string) {
  let document: string | undefined
  const hidden = { detail: { hide: true } }
  return new Elysia({ name: 'openapi' })
    .get(
      '/api/openapi.json',
      () => new Response((document ??= JSON.stringify(completeDocument(app(), version))), { headers: { 'content-type': 'application/json' } }),
      hidden,
    )
    .get('/api/docs', () => new Response(DOCS_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }), hidden)
    .get('/api/docs/swagger-ui-bundle.js', () => new Response(Bun.file(swaggerBundlePath), { headers: { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=86400' } }), hidden)
    .get('/api/docs/swagger-ui.css', () => new Response(Bun.file(swaggerCssPath), { headers: { 'content-type': 'text/css', 'cache-control': 'public, max-age=86400' } }), hidden)
}
