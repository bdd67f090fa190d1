// Request and response schemas of the marketplace (docs/api.md "Marketplace").
import { t } from 'elysia'
import { pageQueryFields } from '../../platform/http/paging.ts'
import { DateTime } from '../../platform/http/schema-pieces.ts'
import { OnConflict } from '../bundles/index.ts'
import { MARKETPLACE_PAGING } from './service.ts'

export const MarketplaceEntry = t.Object({
  id: t.String({ description: 'builtin-<name> for the built-in catalog, a UUID for the organisation catalog' }),
  source: t.Union([t.Literal('builtin'), t.Literal('organisation')]),
  name: t.String({ description: "The agent's name in the bundle: what an install is called unless told otherwise" }),
  title: t.String(),
  description: t.String(),
  version: t.Integer({ description: 'The agent version the bundle holds' }),
  skills: t.Array(t.String()),
  workflows: t.Array(t.String({ description: 'Workflow names' })),
  applications: t.Array(t.String({ description: 'Application api_names' })),
  sha256: t.String({ description: "The bundle's SHA-256" }),
  size: t.Integer({ description: "The bundle's size in bytes" }),
  published_by: t.Nullable(t.String({ description: "The publishing admin's e-mail; null for built-in entries" })),
  published_at: t.Nullable(DateTime),
})

export const MarketplaceQuery = t.Object({
  q: t.Optional(
    t.String({ maxLength: 200, description: 'Words that must all appear in the name, description, skills, workflows or applications (case-insensitive)' }),
  ),
  ...pageQueryFields(MARKETPLACE_PAGING),
})

export const PublishBody = t.Object({
  agent_name: t.String({ minLength: 1, maxLength: 200 }),
  version: t.Optional(t.Integer({ minimum: 1, description: 'Default: the live version' })),
})

export const EntryParams = t.Object({ id: t.String({ maxLength: 200 }) })

export const InstallBody = t.Object({
  name: t.Optional(t.String({ maxLength: 200, description: "The agent's name here; default: the entry's" })),
  on_conflict: t.Optional(OnConflict),
})

export const NoContent = t.Undefined({ description: 'No content' })
