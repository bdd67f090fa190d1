// Export: one version of an agent (live, the draft, or a numbered one) with the current documents of the applications
// it uses, as a bundle. Never a credential, token, run or message: only the agent's document and the documents as uploaded.
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { conflict, DomainError, notFound } from '../../platform/errors.ts'
import { VERSION } from '../../version.ts'
import { type AgentDocument, applicationsOf, authorizeAgent, OWNERS_ONLY_DESIGN, readDraft, readLive, readVersion, VERSION_NOT_FOUND } from '../agents/index.ts'
import type { ApplicationsService } from '../applications/index.ts'
import { skillsOf } from '../skills/index.ts'
import { workflowsOf } from '../workflows/index.ts'
import { AGENT_PATH, type AgentFile, BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, BUNDLE_LIMITS, documentFileName, MANIFEST_PATH, type Manifest } from './format.ts'
import type { ApplicationFilesPart } from './parts.ts'
import { byPath, writeZip } from './zip-write.ts'

const inflate = promisify(gunzip)
const encoder = new TextEncoder()

/** Which version to export: the live one, the draft, or version n. */
export type ExportVersion = 'live' | 'draft' | number

export interface ExportDependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly applications: ApplicationsService
  readonly parts: readonly ApplicationFilesPart[]
}

export interface ExportedBundle {
  readonly bytes: Uint8Array
  readonly filename: string
}

/** JSON as bundles write it: two-space indents and a final newline, so the files read well and diff well. */
export const bundleJson = (value: unknown): Uint8Array => encoder.encode(`${JSON.stringify(value, null, 2)}\n`)
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

async function documentAt(deps: ExportDependencies, principal: Principal, name: string, version: ExportVersion) {
  // The live version is for whoever may use the agent; the draft and numbered versions are design, for owners.
  const agent = await authorizeAgent(deps.db, name, principal, version === 'live' ? 'use' : 'own', OWNERS_ONLY_DESIGN)
  if (version === 'draft') return { agent, number: 'draft' as const, document: (await readDraft(deps.db, agent.id))! }
  if (version === 'live') {
    const live = await readLive(deps.db, agent.id)
    if (!live) throw conflict('This agent has no live version yet: publish it, or export the draft (version=draft)')
    return { agent, number: live.version, document: live.document }
  }
  const document = await readVersion(deps.db, agent.id, version)
  if (!document) throw notFound(VERSION_NOT_FOUND)
  return { agent, number: version, document }
}

/** The applications' current documents as uploaded, with what each part carries beside them. */
async function applicationFiles(deps: ExportDependencies, principal: Principal, document: AgentDocument, files: Map<string, Uint8Array>): Promise<void> {
  for (const { api_name } of applicationsOf(document)) {
    let stored: Awaited<ReturnType<ApplicationsService['document']>>
    try {
      stored = await deps.applications.document(principal, api_name)
    } catch (error) {
      if (!(error instanceof DomainError && error.kind === 'not_found')) throw error
      throw conflict(
        `The agent uses the application '${api_name}', whose API description cannot be exported: it does not exist, you cannot see it, or it was imported before descriptions were kept (re-import it with replace=true)`,
      )
    }
    const folder = `applications/${api_name}`
    files.set(`${folder}/${documentFileName(stored.media_type)}`, new Uint8Array(await inflate(stored.content)))
    if (deps.parts.length === 0) continue
    const app = (await deps.applications.namesInUse(deps.db, principal, [api_name])).get(api_name)!
    for (const part of deps.parts) for (const [path, bytes] of await part.exportFiles(deps.db, app.id)) files.set(`${folder}/${path}`, bytes)
  }
}

/**
 * The bundle of `files` (every file but the manifest), with the manifest that lists them with their SHA-256. Refused
 * (409) when no server would import it, where the cause can still be named.
 */
export async function assembleBundle(files: Map<string, Uint8Array>, about: Pick<Manifest, 'agent' | 'version' | 'exported_at'>): Promise<Uint8Array> {
  let uncompressed = 0
  const hashes: Record<string, string> = {}
  for (const path of [...files.keys()].sort(byPath)) {
    hashes[path] = sha256(files.get(path)!)
    uncompressed += files.get(path)!.byteLength
  }
  const manifest: Manifest = { format: BUNDLE_FORMAT, format_version: BUNDLE_FORMAT_VERSION, ...about, agentbox_version: VERSION, files: hashes }
  const bytes = await writeZip(new Map([...files, [MANIFEST_PATH, bundleJson(manifest)]]))
  const count = files.size + 1
  if (count > BUNDLE_LIMITS.maxEntries || uncompressed > BUNDLE_LIMITS.maxUncompressed || bytes.byteLength > BUNDLE_LIMITS.maxCompressed) {
    throw conflict(
      `This agent's bundle would hold ${count} files, ${(uncompressed / 1024 / 1024).toFixed(1)} MiB uncompressed and ${(bytes.byteLength / 1024 / 1024).toFixed(1)} MiB compressed; ` +
        `an import accepts at most ${BUNDLE_LIMITS.maxEntries} files, ${BUNDLE_LIMITS.maxUncompressed / 1024 / 1024} MiB and ${BUNDLE_LIMITS.maxCompressed / 1024 / 1024} MiB`,
    )
  }
  return bytes
}

/** The bundle of `version` of the agent `name`, as the caller may read it. */
export async function exportBundle(deps: ExportDependencies, principal: Principal, name: string, version: ExportVersion): Promise<ExportedBundle> {
  const { agent, number, document } = await documentAt(deps, principal, name, version)
  const files = new Map<string, Uint8Array>()
  const skills = skillsOf(document)
  const workflows = workflowsOf(document)
  for (const skill of skills) files.set(`skills/${skill.name}/SKILL.md`, encoder.encode(skill.content))
  for (const workflow of workflows)
    files.set(`workflows/${workflow.id}.json`, bundleJson({ id: workflow.id, name: workflow.name, definition: workflow.definition }))
  await applicationFiles(deps, principal, document, files)
  const agentFile: AgentFile = {
    description: document.description,
    instructions: document.instructions,
    applications: applicationsOf(document),
    skills: skills.map((skill) => skill.name),
    workflows: workflows.map((workflow) => workflow.id),
  }
  files.set(AGENT_PATH, bundleJson(agentFile))
  const bytes = await assembleBundle(files, { agent: agent.name, version: number, exported_at: isoTime(deps.clock.now()) })
  return { bytes, filename: `${agent.name}-${number === 'draft' ? 'draft' : `v${number}`}.zip` }
}
