// UI templates: HTML (MCP Apps) attached to an operation of an application. They belong to the application, not to an
// agent's draft: whoever sees the application reads them, its owner or an admin writes them, and a change reaches every
// agent and MCP app that offers the operation on its next tools/list (the templates revision moves).
import type { Static } from '@sinclair/typebox'
import type { Kysely, Transaction } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { UiTemplatesTable } from '../../platform/db/tables/ui-templates.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { isUniqueViolation } from '../../platform/db/unique-violation.ts'
import { conflict, invalidInput, notFound, type InputIssue } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { Revision } from '../../platform/revision.ts'
import { changeableApplication, visibleApplication } from '../applications/index.ts'
import {
  type CreateTemplateBody,
  MAX_HTML_BYTES,
  MAX_TEMPLATES_PER_OPERATION,
  MAX_TYPE_LENGTH,
  TEMPLATE_FORMAT,
  type CspConfig,
  type UiMeta,
  type UpdateTemplateBody,
} from './schema.ts'

export const TEMPLATE_NOT_FOUND = 'Template not found'
export const OPERATION_NOT_FOUND = 'Operation not found'
/** The MCP Apps resource type of a template. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app'

export type TemplateInput = Static<typeof CreateTemplateBody>
export type TemplateChanges = Static<typeof UpdateTemplateBody>
export type CspDomains = Static<typeof CspConfig>
export type TemplateUiMeta = Static<typeof UiMeta>

/** A template as the API shows it. */
export interface TemplateRecord {
  id: string
  html: string
  application_id: string
  operation_id: string
  type: string
  is_default: boolean
  template_format: string
  csp_config: CspDomains | null
  ui_meta: TemplateUiMeta | null
  resource_uri: string
  created_at: string
  updated_at: string
}

/** The `ui://` URI a template is served at over MCP. */
export const templateUri = (apiName: string, operationId: string, templateId: string): string => `ui://${apiName}/${operationId}/${templateId}`

const parseJson = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T))

export function templateRecord(apiName: string, row: UiTemplatesTable): TemplateRecord {
  return {
    id: row.id,
    html: row.html,
    application_id: apiName,
    operation_id: row.operation_id,
    type: row.type,
    is_default: row.is_default === 1,
    template_format: row.template_format,
    csp_config: parseJson<CspDomains>(row.csp_config),
    ui_meta: parseJson<TemplateUiMeta>(row.ui_meta),
    resource_uri: templateUri(apiName, row.operation_id, row.id),
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const

/**
 * The MCP Apps `_meta.ui` of a template's resource (McpUiResourceMeta): the CSP domains of csp_config and ui_meta.csp
 * together (each list once, csp_config's first), the permissions, domain and prefersBorder as given. Empty when the
 * template declares nothing: the host then applies its restrictive default.
 */
export function uiResourceMeta(csp: CspDomains | null, meta: TemplateUiMeta | null): Record<string, unknown> {
  const merged: Record<string, string[]> = {}
  for (const key of CSP_KEYS) {
    const domains = [...new Set([...(csp?.[key] ?? []), ...(meta?.csp?.[key] ?? [])])]
    if (domains.length > 0) merged[key] = domains
  }
  const permissions = meta?.permissions && Object.keys(meta.permissions).length > 0 ? meta.permissions : undefined
  return {
    ...(Object.keys(merged).length > 0 && { csp: merged }),
    ...(permissions && { permissions }),
    ...(meta?.domain !== undefined && { domain: meta.domain }),
    ...(meta?.prefersBorder !== undefined && { prefersBorder: meta.prefersBorder }),
  }
}

/** The fields of a template that the sync writes to and reads from its `.json` file, as stored. */
export interface StoredFields {
  type: string
  is_default: boolean
  template_format: string
  csp_config: CspDomains | null
  ui_meta: TemplateUiMeta | null
}

/**
 * The checks TypeBox cannot make (HTML size in bytes, not characters) and those a pulled `.json` file needs because it
 * did not come through the HTTP schema. Located relative to the input.
 */
export function fieldIssues(input: { html?: unknown } & Partial<Record<keyof StoredFields, unknown>>): InputIssue[] {
  const issues: InputIssue[] = []
  if (input.html !== undefined) {
    if (typeof input.html !== 'string') issues.push({ loc: ['html'], msg: 'Input should be a valid string', type: 'string_type' })
    else if (Buffer.byteLength(input.html) > MAX_HTML_BYTES)
      issues.push({
        loc: ['html'],
        msg: 'The template is larger than 1 MiB',
        type: 'string_too_long',
        ctx: { max_length: MAX_HTML_BYTES },
      })
  }
  if (input.type !== undefined && (typeof input.type !== 'string' || input.type.length === 0 || input.type.length > MAX_TYPE_LENGTH))
    issues.push({ loc: ['type'], msg: `type should be a string of 1 to ${MAX_TYPE_LENGTH} characters`, type: 'value_error', input: input.type })
  if (input.template_format !== undefined && input.template_format !== TEMPLATE_FORMAT)
    issues.push({
      loc: ['template_format'],
      msg: "Input should be 'mcp-app'",
      type: 'literal_error',
      input: input.template_format,
      ctx: { expected: "'mcp-app'" },
    })
  if (input.is_default !== undefined && typeof input.is_default !== 'boolean')
    issues.push({ loc: ['is_default'], msg: 'Input should be a valid boolean', type: 'bool_type', input: input.is_default })
  return issues
}

interface Dependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  /** The applications module's operation, as `principal` may see it: 404 for an unknown one. */
  readonly operation: (principal: Principal, apiName: string, operationId: string) => Promise<unknown>
  /** Moved by every template write: the toolbox's kept tool sets and the resource catalogue watch it. */
  readonly revision: Revision
}

/**
 * The partial unique index behind "one default per operation": on a database that runs writers side by side
 * (PostgreSQL), two writes making different templates the default at once can both clear the others; the second to
 * commit is refused by the index, and said so.
 */
async function oneDefault<T>(write: Promise<T>): Promise<T> {
  try {
    return await write
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('Another template of this operation was made the default at the same time: try again')
    throw error
  }
}

const byDefaultThenAge = (a: UiTemplatesTable, b: UiTemplatesTable) => b.is_default - a.is_default || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export class TemplatesService {
  readonly #deps: Dependencies

  constructor(deps: Dependencies) {
    this.#deps = deps
  }

  get revision(): Revision {
    return this.#deps.revision
  }

  /** The templates of an operation, default first (whoever sees the application; 404 otherwise or for an unknown operation). */
  async list(principal: Principal, apiName: string, operationId: string): Promise<{ templates: TemplateRecord[] }> {
    const { db } = this.#deps
    const app = await visibleApplication(db, principal, apiName)
    await this.#deps.operation(principal, apiName, operationId)
    const rows = await db.selectFrom('ui_templates').selectAll().where('application_id', '=', app.id).where('operation_id', '=', operationId).execute()
    return { templates: rows.sort(byDefaultThenAge).map((row) => templateRecord(apiName, row)) }
  }

  /** Every template of an application without its HTML, default first per operation (design tools, the console). */
  async listOfApplication(principal: Principal, apiName: string): Promise<{ templates: Omit<TemplateRecord, 'html'>[] }> {
    const { db } = this.#deps
    const app = await visibleApplication(db, principal, apiName)
    const rows = await db
      .selectFrom('ui_templates')
      .select(['id', 'operation_id', 'type', 'is_default', 'template_format', 'csp_config', 'ui_meta', 'created_at', 'updated_at'])
      .where('application_id', '=', app.id)
      .orderBy('operation_id')
      .orderBy('is_default', 'desc')
      .orderBy('id')
      .execute()
    return {
      templates: rows.map((row) => {
        const { html: _html, ...rest } = templateRecord(apiName, { ...row, html: '' } as UiTemplatesTable)
        return rest
      }),
    }
  }

  async get(principal: Principal, apiName: string, templateId: string): Promise<TemplateRecord> {
    const { db } = this.#deps
    const app = await visibleApplication(db, principal, apiName)
    return templateRecord(apiName, await this.#row(db, app.id, templateId))
  }

  /** A new template of the operation (owner or admin). */
  async create(principal: Principal, apiName: string, operationId: string, input: TemplateInput): Promise<TemplateRecord> {
    const issues = fieldIssues(input)
    if (issues.length > 0) throw invalidInput(...issues)
    // Rights first (404 / 403 before anything about the operation), then the operation, outside the transaction: the
    // applications module reads it through its own connection.
    await changeableApplication(this.#deps.db, principal, apiName)
    await this.#deps.operation(principal, apiName, operationId)
    return oneDefault(
      inTransaction(this.#deps.db, async (trx) => {
        const app = await changeableApplication(trx, principal, apiName)
        const count = await trx
          .selectFrom('ui_templates')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('application_id', '=', app.id)
          .where('operation_id', '=', operationId)
          .executeTakeFirstOrThrow()
        if (Number(count.n) >= MAX_TEMPLATES_PER_OPERATION) throw conflict(`An operation has at most ${MAX_TEMPLATES_PER_OPERATION} templates`)
        const now = isoTime(this.#deps.clock.now())
        const row: UiTemplatesTable = {
          id: newId(),
          application_id: app.id,
          api_name: apiName,
          operation_id: operationId,
          type: input.type ?? 'result',
          is_default: input.is_default ? 1 : 0,
          template_format: input.template_format ?? TEMPLATE_FORMAT,
          html: input.html,
          csp_config: input.csp_config ? JSON.stringify(input.csp_config) : null,
          ui_meta: input.ui_meta ? JSON.stringify(input.ui_meta) : null,
          revision: 1,
          created_at: now,
          created_by: principal.userId,
          updated_at: now,
          updated_by: principal.userId,
        }
        if (row.is_default) await this.#clearDefault(trx, app.id, operationId)
        await trx.insertInto('ui_templates').values(row).execute()
        await this.#audit(trx, principal, 'template.create', apiName, row, { bytes: Buffer.byteLength(row.html) })
        await this.#deps.revision.changed(trx)
        return templateRecord(apiName, row)
      }),
    )
  }

  /** Changes the given fields (owner or admin). */
  async update(principal: Principal, apiName: string, templateId: string, changes: TemplateChanges): Promise<TemplateRecord> {
    const issues = fieldIssues(changes)
    if (issues.length > 0) throw invalidInput(...issues)
    return oneDefault(
      inTransaction(this.#deps.db, async (trx) => {
        const app = await changeableApplication(trx, principal, apiName)
        const row = await this.#row(trx, app.id, templateId)
        const next = await this.#write(trx, principal, app.id, row, changes)
        await this.#audit(trx, principal, 'template.update', apiName, next, { fields: Object.keys(changes).sort(), bytes: Buffer.byteLength(next.html) })
        return templateRecord(apiName, next)
      }),
    )
  }

  async delete(principal: Principal, apiName: string, templateId: string): Promise<void> {
    await inTransaction(this.#deps.db, async (trx) => {
      const app = await changeableApplication(trx, principal, apiName)
      const row = await this.#row(trx, app.id, templateId)
      await trx.deleteFrom('ui_templates').where('id', '=', row.id).execute()
      await this.#audit(trx, principal, 'template.delete', apiName, row, {})
      await this.#deps.revision.changed(trx)
    })
  }

  /**
   * For the sync: writes `changes` over the template only if it is still at `revision` (what the sync compared), in
   * `trx`. Null when it changed meanwhile or is gone.
   */
  async applyIfUnchanged(
    trx: Transaction<Database>,
    principal: Principal,
    applicationId: string,
    templateId: string,
    revision: number,
    changes: TemplateChanges,
  ): Promise<UiTemplatesTable | null> {
    const row = await trx.selectFrom('ui_templates').selectAll().where('id', '=', templateId).where('application_id', '=', applicationId).executeTakeFirst()
    if (!row || row.revision !== revision) return null
    return this.#write(trx, principal, applicationId, row, changes)
  }

  async #write(
    trx: Transaction<Database>,
    principal: Principal,
    applicationId: string,
    row: UiTemplatesTable,
    changes: TemplateChanges,
  ): Promise<UiTemplatesTable> {
    const next: UiTemplatesTable = {
      ...row,
      ...(changes.html !== undefined && { html: changes.html }),
      ...(changes.type !== undefined && { type: changes.type }),
      ...(changes.is_default !== undefined && { is_default: changes.is_default ? 1 : 0 }),
      ...(changes.template_format !== undefined && { template_format: changes.template_format }),
      ...(changes.csp_config !== undefined && { csp_config: changes.csp_config ? JSON.stringify(changes.csp_config) : null }),
      ...(changes.ui_meta !== undefined && { ui_meta: changes.ui_meta ? JSON.stringify(changes.ui_meta) : null }),
      revision: row.revision + 1,
      updated_at: isoTime(this.#deps.clock.now()),
      updated_by: principal.userId,
    }
    // One default per operation: the others are cleared in the same transaction (the partial unique index backs it).
    if (next.is_default === 1 && row.is_default !== 1) await this.#clearDefault(trx, applicationId, row.operation_id)
    const { id: _id, ...set } = next
    await trx.updateTable('ui_templates').set(set).where('id', '=', row.id).execute()
    await this.#deps.revision.changed(trx)
    return next
  }

  async #clearDefault(trx: Kysely<Database>, applicationId: string, operationId: string): Promise<void> {
    const now = isoTime(this.#deps.clock.now())
    await trx
      .updateTable('ui_templates')
      .set((eb) => ({ is_default: 0, revision: eb('revision', '+', 1), updated_at: now }))
      .where('application_id', '=', applicationId)
      .where('operation_id', '=', operationId)
      .where('is_default', '=', 1)
      .execute()
  }

  async #row(db: Kysely<Database>, applicationId: string, templateId: string): Promise<UiTemplatesTable> {
    const row = await db.selectFrom('ui_templates').selectAll().where('id', '=', templateId).where('application_id', '=', applicationId).executeTakeFirst()
    if (!row) throw notFound(TEMPLATE_NOT_FOUND)
    return row
  }

  async #audit(trx: Kysely<Database>, principal: Principal, action: string, apiName: string, row: UiTemplatesTable, details: Record<string, unknown>) {
    await writeAudit(trx, this.#deps.clock, {
      actor_id: principal.userId,
      action,
      target_type: 'ui_template',
      target_id: row.id,
      details: { api_name: apiName, operation_id: row.operation_id, ...details },
    })
  }
}
