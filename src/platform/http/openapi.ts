// GET /api/openapi.json and GET /api/docs: the OpenAPI 3.1.0 document generated from the validating schemas, and Swagger UI served from the binary.
import { Elysia, type AnyElysia } from 'elysia'
import swaggerBundlePath from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import swaggerCssPath from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import { buildOpenApiDocument, type RouteDescription } from './openapi-document.ts'
import { DOCS_PAGE_HEADERS } from './page-headers.ts'

/** A file, not an inline script, so the page's policy can refuse every inline script. */
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true })\n`

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agentbox API reference</title>
<link rel="icon" href="/favicon.ico" sizes="48x48">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>`

/**
 * `app` is the whole application, read on the first request so every module's routes are in the document. The document
 * is built once and served as the same bytes; it does not depend on which routes Elysia compiled before (openapi-schema.ts).
 */
export function openApiRoutes(app: () => AnyElysia, version: string) {
  let document: string | undefined
  const hidden = { detail: { hide: true } }
  return new Elysia({ name: 'openapi' })
    .get(
      '/api/openapi.json',
      () =>
        new Response((document ??= JSON.stringify(buildOpenApiDocument(app().routes as RouteDescription[], version))), {
          headers: { 'content-type': 'application/json' },
        }),
      hidden,
    )
    .get('/api/docs', () => new Response(DOCS_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', ...DOCS_PAGE_HEADERS } }), hidden)
    .get(
      '/api/docs/init.js',
      () => new Response(DOCS_INIT, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' } }),
      hidden,
    )
    .get(
      '/api/docs/swagger-ui-bundle.js',
      () => new Response(Bun.file(swaggerBundlePath), { headers: { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=86400' } }),
      hidden,
    )
    .get(
      '/api/docs/swagger-ui.css',
      () => new Response(Bun.file(swaggerCssPath), { headers: { 'content-type': 'text/css', 'cache-control': 'public, max-age=86400' } }),
      hidden,
    )
}
