// /api/agents/{name}/export and /api/agents/import (docs/api.md "Bundles").
import { Elysia } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { invalidInput } from '../../platform/errors.ts'
import { DryRunQuery, DryRunResult, ExportParams, ExportQuery, ImportBody, ImportedAgent } from './schema.ts'
import type { BundlesService, ExportVersion } from './service.ts'

export const BUNDLE_IMPORT_PATH = '/api/agents/import'
/** The form around a bundle of the largest accepted size (10 MiB) still fits: its own fields and boundaries are small. */
export const BUNDLE_UPLOAD_LIMIT = 10 * 1024 * 1024 + 64 * 1024

function exportVersion(raw: string | undefined): ExportVersion {
  if (raw === undefined || raw === 'live') return 'live'
  if (raw === 'draft') return 'draft'
  if (/^[1-9]\d{0,8}$/.test(raw)) return Number(raw)
  throw invalidInput({ in: 'query', loc: ['version'], msg: "Input should be 'live', 'draft' or a version number", type: 'value_error', input: raw })
}

/** RFC 6266: the name is made of an agent name and a version, so it is ASCII already. */
const attachment = (filename: string) => `attachment; filename="${filename}"`

export function bundleRoutes(guard: AuthGuard, service: BundlesService) {
  const tags = ['agents']
  return new Elysia({ name: 'bundle-routes' })
    .use(guard)
    .get(
      '/api/agents/:name/export',
      async ({ principal, params, query }) => {
        const bundle = await service.export(principal, params.name, exportVersion(query.version))
        return new Response(bundle.bytes as Uint8Array<ArrayBuffer>, {
          headers: { 'content-type': 'application/zip', 'content-disposition': attachment(bundle.filename), 'cache-control': 'private, no-store' },
        })
      },
      {
        auth: 'member',
        params: ExportParams,
        query: ExportQuery,
        detail: {
          tags,
          summary: 'Export a version of an agent as a bundle (zip)',
          description:
            'manifest.json (format, format_version, agent, version, exported_at, agentbox_version, files with their SHA-256), agent.json, skills/<name>/SKILL.md, ' +
            'workflows/<id>.json and applications/<api_name>/openapi.json|.yaml (the current document as uploaded). Never credentials, tokens or run history. ' +
            'live (default) for whoever may use the agent; draft and numbered versions for owners. The same state always gives the same files.',
          responses: {
            200: {
              description: 'The bundle',
              headers: { 'Content-Disposition': { description: 'attachment; filename="<agent>-v<n>.zip"', schema: { type: 'string' } } },
              content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
            },
            403: { description: 'The draft or a numbered version was asked for by someone who is not an owner' },
            404: { description: 'No such agent (or not visible), or no such version' },
            409: {
              description:
                'The agent has no live version (export the draft), uses an application whose document the caller cannot export, or its bundle would be larger than an import accepts',
            },
          },
        },
      },
    )
    .post(
      BUNDLE_IMPORT_PATH,
      async ({ principal, body, query, set }) => {
        const bytes = new Uint8Array(await body.file.arrayBuffer())
        const outcome = await service.import(principal, bytes, {
          name: body.name === '' ? undefined : body.name,
          onConflict: body.on_conflict,
          globalSpec: body.global_spec,
          dryRun: query.dry_run === true,
        })
        if (query.dry_run === true) return { dry_run: true as const, plan: outcome.plan }
        set.status = 201
        return { ...outcome.agent, imported: outcome.plan }
      },
      {
        auth: 'member',
        body: ImportBody,
        query: DryRunQuery,
        response: { 200: DryRunResult, 201: ImportedAgent },
        detail: {
          tags,
          summary: 'Import an agent from a bundle (multipart), in one transaction',
          description:
            'The agent is created with version 1 published from the bundle (replace: the bundle becomes the next version of the existing agent). ' +
            'Every part is checked as the API checks it, and the archive before anything is read: at most 10 MiB, 50 MiB uncompressed and 2,000 entries; ' +
            'no absolute paths, .., links or duplicate names; every file listed in the manifest with its SHA-256. Problems are 422 on ["body","file"], ' +
            'the file in ctx.path. An application whose api_name exists is reused when its document is identical, else imported under a suffixed name. ' +
            'dry_run=true answers 200 with the plan and keeps nothing.',
          responses: {
            403: { description: 'A member asked for global_spec, or replace was asked by a non-owner of the agent' },
            409: { description: 'An agent of that name exists and on_conflict is fail' },
          },
        },
      },
    )
}
