// GET /setup (the link printed at first boot) and GET /: a plain page until the web console replaces it.
import { Elysia } from 'elysia'
import setupPageSource from './setup-page.html' with { type: 'text' }
import type { TenantService } from './service.ts'

// Imported as text: bun-types types any .html import as an HTML bundle, whatever the import attribute says.
const SETUP_PAGE = setupPageSource as unknown as string
const HTML = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }

export function setupPageRoutes(tenant: TenantService) {
  const hidden = { detail: { hide: true } }
  return new Elysia({ name: 'setup-page' })
    .get('/setup', () => (tenant.provisioned ? Response.redirect('/', 302) : new Response(SETUP_PAGE, { headers: HTML })), hidden)
    .get('/', () => (tenant.provisioned ? Response.redirect('/api/docs', 302) : Response.redirect('/setup', 302)), hidden)
}
