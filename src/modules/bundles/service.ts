// Bundles: an agent version exported as a zip, and a zip imported as an agent (docs/api.md "Bundles").
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { ApplicationsService } from '../applications/index.ts'
import { type ExportedBundle, exportBundle, type ExportVersion } from './exporter.ts'
import { BundleImporter, type ImportOptions, type ImportOutcome } from './importer.ts'
import { APPLICATION_PARTS, type ApplicationFilesPart } from './parts.ts'

export interface BundlesDependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly applications: ApplicationsService
  /** What bundles carry beside an application's document (UI templates); default: the parts this server knows. */
  readonly parts?: readonly ApplicationFilesPart[]
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

  /** Imports the bundle `bytes` (a zip) for `principal` in one transaction; with dryRun, reports what it would do and keeps nothing. */
  import(principal: Principal, bytes: Uint8Array, options: ImportOptions = {}): Promise<ImportOutcome> {
    return this.#importer.import(principal, bytes, options)
  }
}

export type { ExportVersion, ImportOptions, ImportOutcome }
