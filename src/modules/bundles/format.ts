// The bundle format, version 1: what a bundle holds, where, and the limits an import holds it to (docs/api.md "Bundles").
//
//   manifest.json                                  {format, format_version, agent, version, exported_at, agentbox_version, files: {path: sha256}}
//   agent.json                                     {description, instructions, applications, skills: [names], workflows: [ids]}
//   skills/<name>/SKILL.md                         the SKILL.md as saved
//   workflows/<id>.json                            {id, name, definition}
//   applications/<api_name>/openapi.json|.yaml     the application's current document, as uploaded
//   applications/<api_name>/<a part's files>      what an application part carries beside it (UI templates: ApplicationFilesPart)
import { t } from 'elysia'
import { Agent, CreateAgentBody, SaveAgentBody } from '../agents/index.ts'

export const BUNDLE_FORMAT = 'agentbox-bundle'
export const BUNDLE_FORMAT_VERSION = 1
export const MANIFEST_PATH = 'manifest.json'
export const AGENT_PATH = 'agent.json'

export const BUNDLE_LIMITS = Object.freeze({
  maxCompressed: 10 * 1024 * 1024,
  maxUncompressed: 50 * 1024 * 1024,
  maxEntries: 2000,
})

/** Problems listed in one 422 at most (error bodies stay small); the last entry says how many more there were. */
export const MAX_REPORTED_ISSUES = 50

export const SHA256_HEX = /^[0-9a-f]{64}$/
/** Workflow ids in file names: what newId() makes, and the readable ids of the built-in catalog. */
export const WORKFLOW_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

export const Manifest = t.Object({
  format: t.String(),
  format_version: t.Integer(),
  agent: t.String({ minLength: 1, maxLength: 200 }),
  version: t.Union([t.Integer({ minimum: 1 }), t.Literal('draft')]),
  exported_at: t.String({ maxLength: 64 }),
  agentbox_version: t.String({ maxLength: 64 }),
  files: t.Record(t.String(), t.String({ pattern: SHA256_HEX.source })),
})
export type Manifest = typeof Manifest.static

/** agent.json: the agent's own fields, and the order of its skills and workflows. Its name is the manifest's `agent`. */
export const AgentFile = t.Object({
  description: CreateAgentBody.properties.description,
  instructions: CreateAgentBody.properties.instructions,
  applications: SaveAgentBody.properties.applications,
  skills: t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: BUNDLE_LIMITS.maxEntries }),
  workflows: t.Array(t.String({ pattern: WORKFLOW_ID.source }), { maxItems: BUNDLE_LIMITS.maxEntries }),
})
export type AgentFile = typeof AgentFile.static

export const documentFileName = (mediaType: string): string => (/json/i.test(mediaType) ? 'openapi.json' : 'openapi.yaml')
export const mediaTypeOfDocument = (fileName: string): string => (fileName.endsWith('.json') ? 'application/json' : 'application/yaml')

/** What a committed import (or a dry run) did or would do. */
export const ImportPlan = t.Object({
  agent: t.String({ description: 'The name the agent has (or would have) on this server' }),
  bundle_agent: t.String({ description: "The agent's name in the bundle" }),
  action: t.Union([t.Literal('create'), t.Literal('replace')], { description: 'create: a new agent; replace: the bundle becomes its next version' }),
  version: t.Nullable(t.Integer({ description: 'The version published from the bundle; null when a replace changed nothing (live stays)' })),
  skills: t.Array(t.String()),
  workflows: t.Array(t.Object({ id: t.String(), name: t.String() })),
  applications: t.Array(
    t.Object({
      bundle_api_name: t.String({ description: 'The name in the bundle' }),
      api_name: t.String({ description: 'The name on this server: a suffixed one when the bundle name was taken by a different document' }),
      action: t.Union([t.Literal('create'), t.Literal('reuse')], { description: 'reuse: an application with the identical document (SHA-256) is used' }),
      sha256: t.String(),
      operations_count: t.Integer(),
    }),
  ),
})
export type ImportPlan = typeof ImportPlan.static

export const ImportedAgent = t.Object({ ...Agent.properties, imported: ImportPlan })

export const DryRunResult = t.Object({ dry_run: t.Literal(true), plan: ImportPlan })
