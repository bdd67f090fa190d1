// Applications: import from an API description (new, or `replace` as a new revision), list, read, change, delete, and
// browse their operations, scopes and source document. An import is read in a worker and stored in one transaction
// (its own, or its caller's): it lands whole or not at all, with the document it came from.
import type { Kysely, Transaction } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { ApplicationsTable } from '../../platform/db/tables/applications.ts'
import { conflict, forbidden, invalidInput, notFound, type InputIssue } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import { pagedList, resolvePage, uncappedList, type Page } from '../../platform/http/paging.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { ORG_OWNER, type SecretNamespace } from '../../platform/secrets/index.ts'
import { canChange, canSee, changeableApplication, visibleApplication } from './access.ts'
import { schemesOf } from './credentials.ts'
import type { AvailableScope, ImportedDocument } from './document/import.ts'
import { SpecInvalidError } from './document/read.ts'
import { credentialTypeOf } from './document/security.ts'
import { archiveDocument, type ArchivedDocument, readDocument, type StoredDocument, storeDocument } from './source-document.ts'
import type { ImportRunner } from './document/run-import.ts'
import { apiNameFromTitle, readApiName } from './names.ts'
import { applicationView, OPERATION_VIEW_COLUMNS, operationJson, operationView, type ApplicationView, type OperationView } from './views.ts'
import type { OutboundClient } from '../../platform/outbound/outbound-client.ts'
import { RevisionCache, type ApplicationsRevision } from './revision.ts'

export const APPLICATION_PAGING = uncappedList
/** An application may have tens of thousands of operations, each with its input schema: pages of 100 unless asked. */
export const OPERATION_PAGING = pagedList(100)
/** Rows per INSERT: ~5 ms of work for GitHub-sized operations, and far below SQLite's 32,766 bound values. */
const INSERT_CHUNK = 100

/** An import as a caller asks for it: the uploaded description and the form's flags. */
export interface ImportInput {
  /** The description as uploaded: a multipart file, or a bundle's entry as a File (its name and type are kept). */
  document: Blob
  api_name?: string
  replace?: boolean
  global_spec?: boolean
  shared_security_info?: boolean
  create_mcp?: boolean
}

/**
 * An import read and checked, not stored yet: the parsed operations and the compressed document. Parsing takes
 * seconds for large descriptions, so a caller with a transaction prepares first and stores inside it.
 */
export interface PreparedImport {
  readonly flags: Omit<ImportInput, 'document' | 'api_name'>
  readonly apiName: string
  readonly imported: ImportedDocument
  readonly document: ArchivedDocument
}

/** What an import stored. */
export interface ImportedApplication {
  readonly application: ApplicationsTable
  /** False for a new application, true for a new revision of an existing one. */
  readonly replaced: boolean
}

export interface ImportResult {
  api_name: string
  application_id: string
  title: string
  version: string
  openapi_version: string
  operations_count: number
  scopes: string[]
  security_schemes: ImportedDocument['security_schemes']
  global_spec: boolean
  shared_security_info: boolean
  create_mcp: boolean
  mcp_url: string | null
  warnings: ImportedDocument['warnings']
  revision: number
}

/** An application name in use, as a bundle import sees it (ApplicationsService.namesInUse). */
export interface ApplicationInUse {
  id: string
  /** Whether the asking principal sees the application. */
  visible: boolean
  sha256: string | null
  operations_count: number
}

export interface ApplicationChanges {
  title?: string
  description?: string
  base_url?: string | null
  metadata?: Record<string, unknown>
}

export interface ApplicationsServiceDependencies {
  db: Kysely<Database>
  clock: Clock
  runImport: ImportRunner
  /** Null when a base_url may be saved, else why not. */
  checkBaseUrl: OutboundClient['checkSavedUrl']
  revision: ApplicationsRevision
  /** The sealed-secret namespace of the applications' credentials (cleared with their scheme or application). */
  credentials: SecretNamespace
}

function priorityOf(metadata: Record<string, unknown>): number | null {
  const priority = metadata.priority
  return typeof priority === 'number' ? priority : null
}

export class ApplicationsService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #runImport: ImportRunner
  readonly #checkBaseUrl: OutboundClient['checkSavedUrl']
  readonly #revision: ApplicationsRevision
  readonly #credentials: SecretNamespace
  readonly #listed: RevisionCache<{ tags: string[]; json: string }[]>

  constructor(dependencies: ApplicationsServiceDependencies) {
    this.#db = dependencies.db
    this.#clock = dependencies.clock
    this.#runImport = dependencies.runImport
    this.#checkBaseUrl = dependencies.checkBaseUrl
    this.#revision = dependencies.revision
    this.#credentials = dependencies.credentials
    this.#listed = new RevisionCache(dependencies.revision, 32)
  }

  /** The HTTP import: prepared, then stored in a transaction of its own. */
  async importDocument(principal: Principal, input: ImportInput, origin: string): Promise<ImportResult> {
    const prepared = await this.prepareImport(principal, input)
    const { application } = await inTransaction(this.#db, (trx) => this.importApplication(trx, principal, prepared))
    return importResult(application, origin)
  }

  /**
   * Reads the description (in the import worker) and compresses it as uploaded (on zlib's threads), at the same time.
   * Checks what needs no database: the api_name's form, and that only admins ask for global_spec.
   */
  async prepareImport(principal: Principal, input: ImportInput): Promise<PreparedImport> {
    if (input.global_spec === true && principal.role !== 'admin') throw forbidden('Only an admin may make an application visible to every member (global_spec)')
    let requestedName: string | undefined
    if (input.api_name !== undefined && input.api_name !== '') {
      const read = readApiName(input.api_name, ['api_name'])
      if ('issue' in read) throw invalidInput(read.issue)
      requestedName = read.name
    }
    const { document: file, api_name: _, ...flags } = input
    // The worker takes this copy (it is transferred); the compression reads the uploaded file itself.
    const parsing = this.#parse(await file.arrayBuffer())
    const archiving = archiveDocument(file)
    const [imported, document] = await Promise.all([parsing, archiving])
    return { flags, apiName: requestedName ?? apiNameFromTitle(imported.title), imported, document }
  }

  async #parse(bytes: ArrayBuffer): Promise<ImportedDocument> {
    try {
      return await this.#runImport(bytes)
    } catch (error) {
      if (!(error instanceof SpecInvalidError)) throw error
      throw invalidInput({ loc: ['file'], msg: error.message, type: 'spec_invalid', input: null, ctx: { pointer: error.pointer } })
    }
  }

  /**
   * Stores an import in `trx` (the caller's transaction: a bundle imports an agent and its applications in one):
   * a new application, or with `replace` a new revision of an existing one that keeps its credentials (those of
   * schemes that left the document, changed type or belong to the other scope are cleared), base URL and metadata.
   * Given an ImportInput rather than a PreparedImport, it is prepared first, while `trx` waits.
   */
  async importApplication(trx: Transaction<Database>, principal: Principal, input: ImportInput | PreparedImport): Promise<ImportedApplication> {
    const { flags, apiName, imported, document } = 'imported' in input ? input : await this.prepareImport(principal, input)
    const now = isoTime(this.#clock.now())
    const existing = await trx.selectFrom('applications').selectAll().where('api_name', '=', apiName).executeTakeFirst()
    if (existing && flags.replace !== true) throw conflict(`An application named "${apiName}" already exists; send replace=true to import a new revision`)
    if (existing && !canSee(principal, existing)) throw conflict(`An application named "${apiName}" already exists`)
    if (existing && !canChange(principal, existing)) throw forbidden('Only the owner of the application or an admin may replace it')
    const row: ApplicationsTable = {
      id: existing?.id ?? newId(),
      api_name: apiName,
      title: imported.title,
      description: imported.description,
      version: imported.version,
      openapi_version: imported.openapi_version,
      server_url: imported.server_url,
      base_url: existing?.base_url ?? null,
      metadata: existing?.metadata ?? '{}',
      priority: existing?.priority ?? null,
      // On a replace, a flag the form leaves out keeps its value.
      global_spec: flag(flags.global_spec, existing?.global_spec),
      shared_security_info: flag(flags.shared_security_info, existing?.shared_security_info),
      create_mcp: flag(flags.create_mcp, existing?.create_mcp),
      security_schemes: JSON.stringify(imported.security_schemes),
      scopes: JSON.stringify(imported.scopes),
      warnings: JSON.stringify(imported.warnings),
      operations_count: imported.operations.length,
      revision: (existing?.revision ?? 0) + 1,
      owner_id: existing?.owner_id ?? principal.userId,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    }
    if (existing) {
      await trx.updateTable('applications').set(row).where('id', '=', existing.id).execute()
      await trx.deleteFrom('application_operations').where('application_id', '=', existing.id).execute()
      await this.#credentials.removeOf(trx, existing.id, staleCredential(existing, row))
    } else {
      await trx.insertInto('applications').values(row).execute()
    }
    await insertOperations(trx, row.id, imported)
    await storeDocument(trx, row.id, row.revision, document, principal.userId, now)
    await writeAudit(trx, this.#clock, {
      actor_id: principal.userId,
      action: existing ? 'application.replace' : 'application.import',
      target_type: 'application',
      target_id: apiName,
      details: {
        revision: row.revision,
        operations: row.operations_count,
        global_spec: row.global_spec === 1,
        shared_security_info: row.shared_security_info === 1,
        document_sha256: document.sha256,
      },
    })
    await this.#revision.changed(trx)
    return { application: row, replaced: existing !== undefined }
  }

  /**
   * The applications holding any of `names`, each with whether `principal` sees it, its current document's SHA-256
   * (null when imported before documents were kept) and its operation count: what a bundle import needs to reuse an
   * identical application or pick a free name. `db` may be the caller's transaction.
   */
  async namesInUse(db: Kysely<Database>, principal: Principal, names: readonly string[]): Promise<Map<string, ApplicationInUse>> {
    if (names.length === 0) return new Map()
    const rows = await db
      .selectFrom('applications as a')
      .leftJoin('application_documents as d', (join) => join.onRef('d.application_id', '=', 'a.id').onRef('d.revision', '=', 'a.revision'))
      .select(['a.api_name', 'a.id', 'a.owner_id', 'a.global_spec', 'a.operations_count', 'd.sha256'])
      .where('a.api_name', 'in', [...names])
      .execute()
    return new Map(
      rows.map((row) => [row.api_name, { id: row.id, visible: canSee(principal, row), sha256: row.sha256 ?? null, operations_count: row.operations_count }]),
    )
  }

  /**
   * The document the application's current revision was imported from, as uploaded (compressed). 404 when the caller
   * cannot see the application, or when it was imported before documents were kept.
   */
  async document(principal: Principal, apiName: string): Promise<StoredDocument> {
    const app = await visibleApplication(this.#db, principal, apiName)
    const document = await readDocument(this.#db, app.id, app.revision)
    if (!document)
      throw notFound(
        'This application was imported before its API description was kept: it is kept from its next re-import (POST /api/spec_from_file/ with replace=true)',
      )
    return document
  }

  async list(principal: Principal, filters: { min_priority?: number; q?: string } & Page, origin: string): Promise<ApplicationView[]> {
    let query = this.#db.selectFrom('applications').selectAll().orderBy('api_name')
    if (principal.role !== 'admin') query = query.where((eb) => eb.or([eb('global_spec', '=', 1), eb('owner_id', '=', principal.userId)]))
    if (filters.min_priority !== undefined) query = query.where('priority', '>=', filters.min_priority)
    const rows = await query.execute()
    const needle = filters.q?.trim().toLowerCase()
    const matching = needle ? rows.filter((row) => `${row.api_name}\n${row.title}\n${row.description}`.toLowerCase().includes(needle)) : rows
    const { limit, offset } = resolvePage(filters, APPLICATION_PAGING)
    return matching.slice(offset, limit < 0 ? undefined : offset + limit).map((row) => applicationView(row, origin))
  }

  async get(principal: Principal, apiName: string, origin: string): Promise<ApplicationView> {
    return applicationView(await visibleApplication(this.#db, principal, apiName), origin)
  }

  async update(principal: Principal, apiName: string, changes: ApplicationChanges, origin: string): Promise<ApplicationView> {
    const issues: InputIssue[] = []
    if (changes.base_url !== undefined && changes.base_url !== null) {
      const problem = await this.#checkBaseUrl(changes.base_url)
      if (problem) issues.push({ loc: ['base_url'], msg: problem, type: 'value_error', input: changes.base_url })
    }
    const priority = changes.metadata === undefined ? undefined : changes.metadata.priority
    if (priority !== undefined && !(typeof priority === 'number' && Number.isInteger(priority) && priority >= 1 && priority <= 10))
      issues.push({ loc: ['metadata', 'priority'], msg: 'Priority should be an integer from 1 to 10', type: 'value_error', input: priority })
    if (issues.length > 0) throw invalidInput(...issues)
    return this.#db.transaction().execute(async (trx) => {
      const app = await changeableApplication(trx, principal, apiName)
      const now = isoTime(this.#clock.now())
      const set: Partial<ApplicationsTable> = { updated_at: now }
      if (changes.title !== undefined) set.title = changes.title
      if (changes.description !== undefined) set.description = changes.description
      if (changes.base_url !== undefined) set.base_url = changes.base_url === null ? null : new URL(changes.base_url).href
      if (changes.metadata !== undefined) {
        set.metadata = JSON.stringify(changes.metadata)
        set.priority = priorityOf(changes.metadata)
      }
      await trx.updateTable('applications').set(set).where('id', '=', app.id).execute()
      const changed = Object.keys(set).filter((key) => key !== 'updated_at' && key !== 'priority')
      await writeAudit(trx, this.#clock, {
        actor_id: principal.userId,
        action: 'application.update',
        target_type: 'application',
        target_id: apiName,
        details: { fields: changed },
      })
      await this.#revision.changed(trx)
      return applicationView({ ...app, ...set }, origin)
    })
  }

  async delete(principal: Principal, apiName: string): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const app = await changeableApplication(trx, principal, apiName)
      await this.#credentials.removeOf(trx, app.id)
      await trx.deleteFrom('application_documents').where('application_id', '=', app.id).execute()
      await trx.deleteFrom('application_operations').where('application_id', '=', app.id).execute()
      await trx.deleteFrom('application_skills').where('application_id', '=', app.id).execute()
      await trx.deleteFrom('applications').where('id', '=', app.id).execute()
      await writeAudit(trx, this.#clock, {
        actor_id: principal.userId,
        action: 'application.delete',
        target_type: 'application',
        target_id: apiName,
        details: { revision: app.revision },
      })
      // Calls and tool surfaces that kept the application forget it before the next request.
      await this.#revision.changed(trx)
    })
  }

  /**
   * The operations as JSON text. Each operation's JSON is built once per revision of the applications (operationJson)
   * and kept for the 32 applications listed last, so a list costs a filter and a join.
   */
  async operations(principal: Principal, apiName: string, filters: { tag?: string } & Page): Promise<string> {
    const app = await visibleApplication(this.#db, principal, apiName)
    const listed = await this.#listed.get(app.id, async () => {
      const rows = await this.#db
        .selectFrom('application_operations')
        .select(OPERATION_VIEW_COLUMNS)
        .where('application_id', '=', app.id)
        .orderBy('seq')
        .execute()
      return rows.map((row) => ({ tags: JSON.parse(row.tags) as string[], json: operationJson(row) }))
    })
    const tagged = filters.tag === undefined ? listed : listed.filter((entry) => entry.tags.includes(filters.tag!))
    const { limit, offset } = resolvePage(filters, OPERATION_PAGING)
    return `[${tagged
      .slice(offset, limit < 0 ? undefined : offset + limit)
      .map((entry) => entry.json)
      .join(',')}]`
  }

  async operation(principal: Principal, apiName: string, operationId: string): Promise<OperationView> {
    const app = await visibleApplication(this.#db, principal, apiName)
    const row = await this.#db
      .selectFrom('application_operations')
      .select(OPERATION_VIEW_COLUMNS)
      .where('application_id', '=', app.id)
      .where('operation_id', '=', operationId)
      .executeTakeFirst()
    if (!row) throw notFound('Operation not found')
    return operationView(row)
  }

  async availableScopes(principal: Principal, apiName: string): Promise<AvailableScope[]> {
    const app = await visibleApplication(this.#db, principal, apiName)
    return JSON.parse(app.scopes)
  }
}

/**
 * Which credentials a replace clears: a credential stays while its scheme does, as the same kind of credential, in
 * the scope it was set for (the other scope's stop applying when shared_security_info flips: dropped, not kept hidden).
 */
function staleCredential(before: ApplicationsTable, after: ApplicationsTable): (owner: string, scheme: string) => boolean {
  const typeBefore = new Map(schemesOf(before).map((scheme) => [scheme.name, credentialTypeOf(scheme)]))
  const typeAfter = new Map(schemesOf(after).map((scheme) => [scheme.name, credentialTypeOf(scheme)]))
  const orgScope = after.shared_security_info === 1
  return (owner, scheme) => !typeAfter.get(scheme) || typeAfter.get(scheme) !== typeBefore.get(scheme) || (owner === ORG_OWNER) !== orgScope
}

/** The 201 of an import, with the MCP URL named from the request's origin. */
export function importResult(app: ApplicationsTable, origin: string): ImportResult {
  const view = applicationView(app, origin)
  return {
    api_name: view.api_name,
    application_id: view.application_id,
    title: view.title,
    version: view.version,
    openapi_version: view.openapi_version,
    operations_count: view.operations_count,
    scopes: view.scopes,
    security_schemes: view.security_schemes,
    global_spec: view.global_spec,
    shared_security_info: view.shared_security_info,
    create_mcp: view.create_mcp,
    mcp_url: view.mcp_url,
    warnings: view.warnings,
    revision: view.revision,
  }
}

const flag = (given: boolean | undefined, current: number | undefined): number => (given === undefined ? (current ?? 0) : given ? 1 : 0)

async function insertOperations(trx: Transaction<Database>, applicationId: string, imported: ImportedDocument): Promise<void> {
  const rows = imported.operations.map((operation, seq) => ({ application_id: applicationId, seq, ...operation }))
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    await trx
      .insertInto('application_operations')
      .values(rows.slice(start, start + INSERT_CHUNK))
      .execute()
    // Hand the event loop back between chunks: other requests go on (their writes wait for this transaction, which
    // holds the only write connection, so nothing interleaves with the import).
    if (start + INSERT_CHUNK < rows.length) await new Promise((resolve) => setImmediate(resolve))
  }
}
