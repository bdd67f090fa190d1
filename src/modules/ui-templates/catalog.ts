// What the agent toolbox needs of templates to serve them as MCP Apps: per application, each operation's templates
// without their HTML (a set keeps these, so 1 MiB templates never multiply in the kept tool sets), and the HTML of one
// template when a client reads its resource. Kept per application until any template changes.
import type { Kysely } from 'kysely'
import type { Database } from '../../platform/db/schema.ts'
import { RevisionCache, type Revision } from '../../platform/revision.ts'
import { templateUri, uiResourceMeta, type CspDomains, type TemplateUiMeta } from './templates.ts'

/** A template as a tool set lists it. */
export interface TemplateSummary {
  readonly id: string
  readonly apiName: string
  readonly operationId: string
  readonly type: string
  readonly isDefault: boolean
  /** `ui://{api_name}/{operation_id}/{template_id}` */
  readonly uri: string
  /** MCP Apps `_meta.ui` of the resource: csp, permissions, domain, prefersBorder (only those the template declares). */
  readonly ui: Readonly<Record<string, unknown>>
}

export interface TemplateCatalog {
  /** Moves with every template write: what kept tool sets are keyed by. */
  readonly revision: number
  /** The templates of the application's operations, the default first for each operation. */
  ofApplication(apiName: string): Promise<readonly TemplateSummary[]>
  /** The template's HTML as stored now; null when it is gone. */
  html(templateId: string): Promise<string | null>
}

export class StoredTemplateCatalog implements TemplateCatalog {
  readonly #db: Kysely<Database>
  readonly #revision: Revision
  readonly #kept: RevisionCache<readonly TemplateSummary[]>

  constructor(db: Kysely<Database>, revision: Revision) {
    this.#db = db
    this.#revision = revision
    this.#kept = new RevisionCache(revision, 512)
  }

  get revision(): number {
    return this.#revision.value
  }

  ofApplication(apiName: string): Promise<readonly TemplateSummary[]> {
    return this.#kept.get(apiName, async () => {
      const rows = await this.#db
        .selectFrom('ui_templates')
        .select(['id', 'operation_id', 'type', 'is_default', 'csp_config', 'ui_meta'])
        .where('api_name', '=', apiName)
        .orderBy('operation_id')
        .orderBy('is_default', 'desc')
        .orderBy('id')
        .execute()
      return rows.map((row) => ({
        id: row.id,
        apiName,
        operationId: row.operation_id,
        type: row.type,
        isDefault: row.is_default === 1,
        uri: templateUri(apiName, row.operation_id, row.id),
        ui: uiResourceMeta(
          row.csp_config === null ? null : (JSON.parse(row.csp_config) as CspDomains),
          row.ui_meta === null ? null : (JSON.parse(row.ui_meta) as TemplateUiMeta),
        ),
      }))
    })
  }

  async html(templateId: string): Promise<string | null> {
    const row = await this.#db.selectFrom('ui_templates').select('html').where('id', '=', templateId).executeTakeFirst()
    return row?.html ?? null
  }
}
