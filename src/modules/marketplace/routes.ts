// /api/marketplace: list and search the built-in and organisation catalogs, publish (admins), install, download, remove.
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { DryRunQuery, DryRunResult, ImportedAgent } from '../bundles/index.ts'
import { EntryParams, InstallBody, MarketplaceEntry, MarketplaceQuery, NoContent, PublishBody } from './schema.ts'
import type { MarketplaceService } from './service.ts'

const NOT_FOUND = { 404: { description: 'No such marketplace entry' } }

export function marketplaceRoutes(guard: AuthGuard, service: MarketplaceService) {
  const tags = ['marketplace']
  return new Elysia({ name: 'marketplace-routes' })
    .use(guard)
    .get('/api/marketplace', ({ query }) => service.list(query), {
      auth: 'member',
      query: MarketplaceQuery,
      response: { 200: t.Array(MarketplaceEntry) },
      detail: {
        tags,
        summary: 'The catalog: built-in sample agents, then the organisation catalog (newest first); q searches',
        description: 'The built-in catalog is compiled into the server: nothing is fetched, so it works air-gapped.',
      },
    })
    .post(
      '/api/marketplace',
      async ({ principal, body, set }) => {
        const entry = await service.publish(principal, body)
        set.status = 201
        return entry
      },
      {
        auth: 'admin',
        body: PublishBody,
        response: { 201: MarketplaceEntry },
        detail: {
          tags,
          summary: 'Publish a version of an agent (live by default) into the organisation catalog (admins)',
          description: 'The version is exported as a bundle (the export rules apply: a numbered version needs an owner) and kept as it is now.',
          responses: {
            404: { description: 'No such agent or version' },
            409: { description: 'That version is already in the catalog, the agent has no live version, or it cannot be exported' },
          },
        },
      },
    )
    .get(
      '/api/marketplace/:id/bundle',
      async ({ params }) => {
        const { bytes, filename } = await service.bundle(params.id)
        return new Response(bytes as Uint8Array<ArrayBuffer>, {
          headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${filename}"` },
        })
      },
      {
        auth: 'member',
        params: EntryParams,
        detail: {
          tags,
          summary: "An entry's bundle (zip), as POST /api/agents/import takes it",
          responses: {
            200: { description: 'The bundle', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
            ...NOT_FOUND,
          },
        },
      },
    )
    .post(
      '/api/marketplace/:id/install',
      async ({ principal, params, body, query, set }) => {
        const dryRun = query.dry_run === true
        const outcome = await service.install(principal, params.id, { name: body?.name || undefined, onConflict: body?.on_conflict, dryRun })
        if (dryRun) return { dry_run: true as const, plan: outcome.plan }
        set.status = 201
        return { ...outcome.agent, imported: outcome.plan }
      },
      {
        auth: 'member',
        params: EntryParams,
        body: t.Optional(InstallBody),
        query: DryRunQuery,
        response: { 200: DryRunResult, 201: ImportedAgent },
        detail: {
          tags,
          summary: 'Install an entry for the caller: its bundle imported with the import rules (dry_run=true: the plan only)',
          responses: { ...NOT_FOUND, 409: { description: 'An agent of that name exists and on_conflict is fail' } },
        },
      },
    )
    .delete(
      '/api/marketplace/:id',
      async ({ principal, params, set }) => {
        await service.remove(principal, params.id)
        set.status = 204
      },
      {
        auth: 'admin',
        params: EntryParams,
        response: { 204: NoContent },
        detail: {
          tags,
          summary: 'Remove an entry of the organisation catalog (admins); installed agents stay',
          responses: { ...NOT_FOUND, 409: { description: 'Built-in entries cannot be removed' } },
        },
      },
    )
}
