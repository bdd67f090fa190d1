// Import: a bundle checked whole (archive, manifest, every part as the API checks it, the applications' documents parsed
// in the applications' worker), then written in ONE transaction: the applications it needs, the agent (new, or the
// next version of an existing one), its draft, and version 1 (or N+1) published from it. Any failure on the way rolls
// everything back. A dry run does the same work and rolls back on purpose, so its plan is exactly what an import does.
import type { Kysely, Transaction } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { conflict, DomainError, forbidden, type InputIssue, invalidInput } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import {
  type AgentDesignStore,
  agentNameIssue,
  agentNameTaken,
  type AgentRecord,
  type ApplicationUsesCheck,
  type ApplicationUse,
  authorizeAgent,
  createAgent,
  getAgent,
  normaliseAgentName,
  publishAgentVersion,
  readDraft,
  saveAgent,
  updateDraft,
} from '../agents/index.ts'
import type { ApplicationInUse, ApplicationsService, PreparedImport } from '../applications/index.ts'
import { skillsOf } from '../skills/index.ts'
import { workflowItem } from '../workflows/index.ts'
import { type BundleApplication, type BundleContents, fileIssue, issuesInFile, readContents, refuse } from './contents.ts'
import { AGENT_PATH, BUNDLE_LIMITS, type ImportPlan, mediaTypeOfDocument } from './format.ts'
import type { ApplicationFilesPart } from './parts.ts'
import { readZip, ZipRefused } from './zip-read.ts'

export type OnConflict = 'fail' | 'rename' | 'replace'

export interface ImportOptions {
  /** The agent's name here; default: the bundle's. */
  name?: string
  onConflict?: OnConflict
  /** Check and plan only: nothing is kept. */
  dryRun?: boolean
  /** New applications visible to every member (admins only, as for an upload). */
  globalSpec?: boolean
  /** The note of the version published from the bundle. */
  note?: string
}

export interface ImportOutcome {
  agent: AgentRecord
  plan: ImportPlan
}

export interface ImportDependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly applications: ApplicationsService
  /** The applications module's check of the applications an agent's save names (agents are saved through it). */
  readonly checkApplicationUses: ApplicationUsesCheck
  readonly parts: readonly ApplicationFilesPart[]
}

/** Thrown to roll a dry run back once its plan is known. */
class DryRunDone extends Error {
  constructor(readonly outcome: ImportOutcome) {
    super('dry run')
  }
}

const MAX_NAME = 64

/** `base-2`, `base-3`…, the base shortened so the name stays within 64 characters. */
function suffixed(base: string, n: number): string {
  const suffix = `-${n}`
  return `${base.slice(0, MAX_NAME - suffix.length).replace(/-+$/, '')}${suffix}`
}

/** The archive's files, or a 422 on the upload saying why the archive is refused. */
export async function unpack(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  if (bytes.byteLength > BUNDLE_LIMITS.maxCompressed) {
    refuse([
      fileIssue(
        null,
        `The bundle is ${(bytes.byteLength / 1024 / 1024).toFixed(1)} MiB; at most ${BUNDLE_LIMITS.maxCompressed / 1024 / 1024} MiB are accepted`,
        'bundle_too_large',
      ),
    ])
  }
  try {
    return await readZip(bytes, BUNDLE_LIMITS)
  } catch (error) {
    if (error instanceof ZipRefused) refuse([fileIssue(null, error.message, 'bundle_unsafe', error.path ? { path: error.path } : {})])
    throw error
  }
}

const reusable = (existing: ApplicationInUse | undefined, sha256: string) => existing?.visible === true && existing.sha256 === sha256

/** Rewrites the issues of a step that checks a bundle file as the API would, onto that file. */
async function inFile<R>(path: string, work: () => Promise<R>): Promise<R> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid_input') throw invalidInput(...issuesInFile(path, error.issues))
    if (error instanceof DomainError && error.kind === 'too_large') throw invalidInput(fileIssue(path, error.message, 'bundle_too_large'))
    throw error
  }
}

export class BundleImporter {
  constructor(private readonly deps: ImportDependencies) {}

  async import(principal: Principal, bytes: Uint8Array, options: ImportOptions = {}): Promise<ImportOutcome> {
    // As for an upload, and whether or not the bundle's applications turn out to be new.
    if (options.globalSpec === true && principal.role !== 'admin') throw forbidden('Only an admin may make applications visible to every member (global_spec)')
    const contents = await readContents(await unpack(bytes), this.deps.parts)
    const requested = options.name ?? contents.manifest.agent
    const nameIssue = agentNameIssue(requested, ['name'])
    if (nameIssue) throw invalidInput(nameIssue)
    const name = normaliseAgentName(requested)
    const prepared = await this.#prepareApplications(principal, contents, options.globalSpec)
    try {
      return await inTransaction(this.deps.db, async (trx) => {
        const outcome = await this.#write(trx, principal, contents, prepared, name, options)
        if (options.dryRun) throw new DryRunDone(outcome)
        return outcome
      })
    } catch (error) {
      if (error instanceof DryRunDone) return error.outcome
      throw error
    }
  }

  /** Parses (in the applications' worker, outside any transaction) every document that is not already here as it is. */
  async #prepareApplications(principal: Principal, contents: BundleContents, globalSpec?: boolean): Promise<Map<BundleApplication, PreparedImport>> {
    const existing = await this.deps.applications.namesInUse(
      this.deps.db,
      principal,
      contents.applications.map((app) => app.apiName),
    )
    const prepared = new Map<BundleApplication, PreparedImport>()
    const issues: InputIssue[] = []
    for (const app of contents.applications) {
      if (reusable(existing.get(app.apiName), app.sha256)) continue
      try {
        prepared.set(app, await this.#prepare(principal, app, globalSpec))
      } catch (error) {
        if (!(error instanceof DomainError && error.kind === 'invalid_input')) throw error
        issues.push(...error.issues.map((issue) => fileIssue(app.path, issue.msg, issue.type, issue.ctx)))
      }
    }
    if (issues.length > 0) refuse(issues)
    return prepared
  }

  #prepare(principal: Principal, app: BundleApplication, globalSpec?: boolean): Promise<PreparedImport> {
    const fileName = app.path.slice(app.path.lastIndexOf('/') + 1)
    const document = new File([app.content as Uint8Array<ArrayBuffer>], fileName, { type: mediaTypeOfDocument(fileName) })
    return this.deps.applications.prepareImport(principal, { document, api_name: app.apiName, global_spec: globalSpec })
  }

  async #write(
    trx: Transaction<Database>,
    principal: Principal,
    contents: BundleContents,
    prepared: Map<BundleApplication, PreparedImport>,
    requestedName: string,
    options: ImportOptions,
  ): Promise<ImportOutcome> {
    const store: AgentDesignStore = { db: trx, clock: this.deps.clock, checkApplicationUses: this.deps.checkApplicationUses }
    const { name, action } = await this.#target(trx, principal, requestedName, options.onConflict ?? 'fail')
    const applications = await this.#applications(trx, principal, contents, prepared, options.globalSpec)
    const renamed = new Map(applications.map((app) => [app.bundle_api_name, app.api_name]))
    const uses: ApplicationUse[] = contents.agent.applications.map((use) => ({ ...use, api_name: renamed.get(use.api_name)! }))
    if (action === 'create') {
      await createAgent(store, principal, { name, description: contents.agent.description, instructions: contents.agent.instructions })
    }
    await inFile(AGENT_PATH, () =>
      saveAgent(store, principal, name, { description: contents.agent.description, instructions: contents.agent.instructions, applications: uses }),
    )
    const agentId = (await authorizeAgent(trx, name, principal, 'own')).id
    const now = isoTime(this.deps.clock.now())
    const before = new Map(skillsOf((await readDraft(trx, agentId))!).map((skill) => [skill.name, skill]))
    await inFile(AGENT_PATH, () =>
      updateDraft(store, agentId, principal.userId, (draft) => {
        draft.skills = contents.skills.map(({ name, skill }) => {
          const kept = before.get(name)
          return { ...skill, id: kept?.id ?? newId(), created_at: kept?.created_at ?? now, updated_at: now }
        })
        draft.workflows = contents.workflows.map((workflow) => workflowItem(workflow.id, workflow, now))
      }),
    )
    const row = await authorizeAgent(trx, name, principal, 'own')
    const note = options.note ?? `Imported from the bundle of ${contents.manifest.agent} (version ${contents.manifest.version})`
    const version = row.draft_hash === row.live_hash ? null : (await publishAgentVersion(store, principal, name, note.slice(0, 500))).version
    const plan: ImportPlan = {
      agent: name,
      bundle_agent: contents.manifest.agent,
      action,
      version,
      skills: contents.skills.map((skill) => skill.name),
      workflows: contents.workflows.map((workflow) => ({ id: workflow.id, name: workflow.name })),
      applications,
    }
    await writeAudit(trx, this.deps.clock, {
      actor_id: principal.userId,
      action: 'agent.import',
      target_type: 'agent',
      target_id: name,
      details: {
        bundle_agent: plan.bundle_agent,
        action,
        version,
        applications: applications.map(({ bundle_api_name, api_name, action }) => ({ bundle_api_name, api_name, action })),
      },
    })
    return { agent: await getAgent(trx, principal, name), plan }
  }

  /** Which agent the bundle becomes: a new one (its name, or with rename the first free suffixed one), or the next version of one the caller owns. */
  async #target(
    trx: Transaction<Database>,
    principal: Principal,
    name: string,
    onConflict: OnConflict,
  ): Promise<{ name: string; action: 'create' | 'replace' }> {
    const taken = (candidate: string) => agentNameTaken(trx, candidate)
    if (!(await taken(name))) return { name, action: 'create' }
    if (onConflict === 'fail') {
      throw conflict(
        `An agent named '${name}' already exists: import it under another name (name), as a renamed copy (on_conflict=rename) or as its next version (on_conflict=replace)`,
      )
    }
    if (onConflict === 'rename') {
      for (let n = 2; ; n++) if (!(await taken(suffixed(name, n)))) return { name: suffixed(name, n), action: 'create' }
    }
    try {
      await authorizeAgent(trx, name, principal, 'own', 'Only owners can import a new version of this agent')
    } catch (error) {
      // An agent the caller cannot see is only a taken name to them, as it is for a create.
      if (error instanceof DomainError && error.kind === 'not_found') throw conflict(`An agent named '${name}' already exists`)
      throw error
    }
    return { name, action: 'replace' }
  }

  /**
   * Each application of the bundle: reused when an application the caller sees has the identical document (under the
   * bundle's name, or a suffixed name an earlier import of it took), else imported under the bundle's name or the first
   * free suffixed one.
   */
  async #applications(
    trx: Transaction<Database>,
    principal: Principal,
    contents: BundleContents,
    prepared: Map<BundleApplication, PreparedImport>,
    globalSpec?: boolean,
  ): Promise<ImportPlan['applications']> {
    const planned: ImportPlan['applications'] = []
    const claimed = new Set(contents.applications.map((app) => app.apiName))
    for (const app of contents.applications) {
      let candidate = app.apiName
      for (let n = 2; ; n++) {
        const existing = (await this.deps.applications.namesInUse(trx, principal, [candidate])).get(candidate)
        if (reusable(existing, app.sha256)) {
          planned.push({ bundle_api_name: app.apiName, api_name: candidate, action: 'reuse', sha256: app.sha256, operations_count: existing!.operations_count })
          break
        }
        // A name the bundle itself uses for another application is left to that one.
        const free = existing === undefined && (candidate === app.apiName || !claimed.has(candidate))
        if (free) {
          const ready = prepared.get(app) ?? (await this.#prepare(principal, app, globalSpec))
          const { application } = await inFile(app.path, () => this.deps.applications.importApplication(trx, principal, { ...ready, apiName: candidate }))
          for (const [part, files] of app.parts) if (files.size > 0) await part.store(trx, principal, application.id, files)
          planned.push({
            bundle_api_name: app.apiName,
            api_name: candidate,
            action: 'create',
            sha256: app.sha256,
            operations_count: application.operations_count,
          })
          claimed.add(candidate)
          break
        }
        candidate = suffixed(app.apiName, n)
      }
    }
    return planned
  }
}
