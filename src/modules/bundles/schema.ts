// Request and response schemas of bundle export and import (docs/api.md "Bundles").
import { t } from 'elysia'
export { DryRunResult, ImportedAgent, ImportPlan } from './format.ts'

export const OnConflict = t.Union([t.Literal('fail'), t.Literal('rename'), t.Literal('replace')], {
  description:
    'When an agent of that name exists: fail (409), rename (the first free name-2, name-3…), replace (the bundle becomes its next version). Default fail.',
})

export const ImportBody = t.Object({
  file: t.File({ description: 'The bundle: a zip exported by GET /api/agents/{name}/export; at most 10 MiB' }),
  name: t.Optional(t.String({ maxLength: 200, description: "The agent's name here (normalised like any agent name); default: the bundle's" })),
  on_conflict: t.Optional(OnConflict),
  global_spec: t.Optional(
    t.BooleanString({ description: 'Applications the import creates are visible to every member (admins only; a member asking gets 403). Default false.' }),
  ),
})

export const DryRunQuery = t.Object({
  dry_run: t.Optional(t.BooleanString({ description: 'Check the bundle and answer 200 with the plan of what would be created or reused; nothing is kept' })),
})

export const ExportParams = t.Object({ name: t.String() })

export const ExportQuery = t.Object({
  version: t.Optional(t.String({ description: 'live (default), draft, or a version number', examples: ['live', 'draft', '3'] })),
})
