// Bundles: an agent version exported as a zip, and a zip imported as an agent (docs/api.md "Bundles").
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { ApplicationUsesCheck } from '../agents/index.ts'
import type { ApplicationsService } from '../applications/index.ts'
import { type ExportedBundle, exportBundle, type ExportVersion } from './exporter.ts'
import { readContents } from './contents.ts'
import { BundleImporter, type ImportOptions, type ImportOutcome, unpack } from './importer.ts'
import { APPLICATION_PARTS, type ApplicationFilesPart } from './parts.ts'

export interface BundlesDependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly applications: ApplicationsService
  /** The applications module's check of the applications an agent's save names. */
  readonly checkApplicationUses: ApplicationUsesCheck
  /** What bundles carry beside an application's document (UI templates); default: the parts this server knows. */
  readonly parts?: readonly ApplicationFilesPart[]
}

/** A bundle as a catalog lists it. */
export interface BundleSummary {
  agent: string
  version: number | 'draft'
  description: string
  skills: string[]
  /** Workflow names. */
  workflows: string[]
  /** Application api_names. */
  applications: string[]
}

export class BundlesService {
  readonly #deps: Required<BundlesDependencies>
  readonly #importer: BundleImporter

  constructor(deps: BundlesDependencies) {
    this.#deps = { ...deps, parts: deps.parts ?? APPLICATION_PARTS }
    this.#importer = new BundleImporter(this.#deps)
  }

  /** The bundle of one version of the agent: `live` for whoever may use it, `draft` or a number for owners. */
  export(principal: Principal, agentName: string, version: ExportVersion): Promise<ExportedBundle> {
    return exportBundle(this.#deps, principal, agentName, version)
  }

  /** What a bundle holds, for catalog listings: checked as an import checks it (422 otherwise), nothing written. */
  async summary(bytes: Uint8Array): Promise<BundleSummary> {
    const contents = await readContents(await unpack(bytes), this.#deps.parts)
    return {
      agent: contents.manifest.agent,
      version: contents.manifest.version,
      description: contents.agent.description,
      skills: contents.skills.map((skill) => skill.name),
      workflows: contents.workflows.map((workflow) => workflow.name),
      applications: contents.applications.map((app) => app.apiName),
    }
  }

  /** Imports the bundle `bytes` (a zip) for `principal` in one transaction; with dryRun, reports what it would do and keeps nothing. */
  import(principal: Principal, bytes: Uint8Array, options: ImportOptions = {}): Promise<ImportOutcome> {
    return this.#importer.import(principal, bytes, options)
  }
}

export type { ExportVersion, ImportOptions, ImportOutcome }
