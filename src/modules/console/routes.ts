// GET / and the console's own paths serve the single-page app; /console/app.{js,css} its assets; /favicon.ico and
// /favicon.svg its icon (embedded in the binary). Never anything under /api.
import { Elysia } from 'elysia'
import faviconIcoPath from '../../web/favicon.ico' with { type: 'file' }
import faviconSvgPath from '../../web/favicon.svg' with { type: 'file' }
import { CONSOLE_PAGE_HEADERS, TEMPLATE_PREVIEW_HEADERS } from '../../platform/http/page-headers.ts'
import type { TenantService } from '../tenant/index.ts'
import { consoleAssets, type ConsoleAssets } from './assets.ts'

/** Client-side routes: a reload or a shared link on any of them gets the app, which then draws the page. */
export const CONSOLE_PATHS = [
  '/login',
  '/overview',
  '/chat',
  '/users',
  '/agents',
  '/marketplace',
  '/tasks',
  '/approvals',
  '/history',
  '/applications',
  '/mcp-servers',
  '/gpt-apps',
  '/usage',
  '/insights',
  '/settings',
  '/context-types',
  '/audit',
  '/connected-clients',
  '/oauth/consent',
] as const

const NO_STORE = { 'cache-control': 'no-store' }
const hidden = { detail: { hide: true } }

// The asset URLs carry a content hash so a new binary's assets replace the old ones in every browser cache.
function versionTag(assets: ConsoleAssets): string {
  const hash = new Bun.CryptoHasher('sha256')
  hash.update(assets.js)
  hash.update(assets.css)
  return hash.digest('hex').slice(0, 12)
}

const tags = new WeakMap<ConsoleAssets, string>()
async function page(): Promise<Response> {
  const assets = await consoleAssets()
  let tag = tags.get(assets)
  if (!tag) tags.set(assets, (tag = versionTag(assets)))
  const html = assets.html.replaceAll('{{v}}', tag)
  return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8', ...NO_STORE, ...CONSOLE_PAGE_HEADERS } })
}

/** Not content-hashed like app.js: browsers ask for /favicon.ico by that name, so a day's cache lets a new icon show. */
const icon = (path: string, type: string) => new Response(Bun.file(path), { headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } })

const asset = (body: Uint8Array, type: string) =>
  new Response(body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' } })

/**
 * The template preview frame: the console posts it `{html, csp}`; it draws the HTML in a sandboxed view with `csp` as
 * the view's first meta element, so the template runs under its own declared policy and never with the console's origin.
 */
const TEMPLATE_PREVIEW = `<!doctype html>
<html><head><meta charset="utf-8"><title>Template preview</title>
<style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%;display:block}</style></head>
<body><iframe id="view" sandbox="allow-scripts" title="Template"></iframe>
<script>
addEventListener('message', function (event) {
  if (event.source !== parent) return
  var data = event.data || {}
  if (typeof data.html !== 'string' || typeof data.csp !== 'string') return
  var meta = '<meta http-equiv="Content-Security-Policy" content="' + data.csp.replace(/&/g, '&amp;').replace(/"/g, '&quot;') + '">'
  var html = data.html
  var head = /<head(\\s[^>]*)?>/i
  var doctype = /^\\s*<!doctype[^>]*>/i
  var view = head.test(html) ? html.replace(head, function (tag) { return tag + meta }) : doctype.test(html) ? html.replace(doctype, function (tag) { return tag + meta }) : meta + html
  document.getElementById('view').srcdoc = view
})
parent.postMessage({ type: 'template-preview-ready' }, '*')
</script></body></html>
`

export function consoleRoutes(tenant: TenantService) {
  const routes = new Elysia({ name: 'console' })
    // An unprovisioned instance has nothing to sign in to: send every visitor to the wizard, and the wizard away once done.
    .get('/', () => (tenant.provisioned ? page() : Response.redirect('/setup', 302)), hidden)
    .get('/setup', () => (tenant.provisioned ? Response.redirect('/', 302) : page()), hidden)
    .get('/console/app.js', async () => asset((await consoleAssets()).js, 'text/javascript; charset=utf-8'), hidden)
    .get('/console/app.css', async () => asset((await consoleAssets()).css, 'text/css; charset=utf-8'), hidden)
    .get(
      '/console/template-preview.html',
      () =>
        new Response(TEMPLATE_PREVIEW, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...TEMPLATE_PREVIEW_HEADERS } }),
      hidden,
    )
    // Served before setup too: the wizard's tab shows it, and a browser asks for /favicon.ico on every page it opens.
    .get('/favicon.ico', () => icon(faviconIcoPath, 'image/x-icon'), hidden)
    .get('/favicon.svg', () => icon(faviconSvgPath, 'image/svg+xml'), hidden)
  for (const path of CONSOLE_PATHS) {
    const serve = () => (tenant.provisioned ? page() : Response.redirect('/setup', 302))
    // Elysia registers on the instance itself; the returned (re-typed) instance is the same object.
    routes.get(path, serve, hidden).get(`${path}/*`, serve, hidden)
  }
  return routes
}
