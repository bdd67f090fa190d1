// An agent bundle carries its applications' UI templates beside each document, in the repository's layout:
// applications/<api_name>/templates/<operation_id>/<template_id>.html and .json. Export writes them in a fixed order;
// import checks them as a PUT would (and the operation against the imported document) and stores them with the new
// application in the import's transaction. A reused application keeps its own templates.
import type { Kysely, Transaction } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { UiTemplatesTable } from '../../platform/db/tables/ui-templates.ts'
import type { InputIssue } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { Revision } from '../../platform/revision.ts'
import type { ApplicationFilesPart, ImportedApplicationRef, PartFiles } from '../bundles/index.ts'
import { MAX_TEMPLATES_PER_OPERATION, TEMPLATE_FORMAT } from './schema.ts'
import { htmlFile, jsonFile, templateJson } from './template-files.ts'
import { templateFromFiles } from './template-from-files.ts'
import type { TemplateChanges } from './templates.ts'

const FOLDER = 'templates/'
/** templates/<operation_id>/<template_id>.html|json; template ids are UUIDs (they name the files in repositories too). */
const TEMPLATE_FILE = /^templates\/([^/]+)\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(html|json)$/

type Problem = { path: string; issue: Omit<InputIssue, 'loc'> }
const problem = (path: string, msg: string): Problem => ({ path, issue: { msg, type: 'bundle_invalid' } })

interface BundledTemplate {
  readonly operationId: string
  readonly id: string
  readonly changes: TemplateChanges
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The templates the files hold, with every problem found in them. */
function readTemplates(files: PartFiles): { templates: BundledTemplate[]; problems: Problem[] } {
  const problems: Problem[] = []
  const pairs = new Map<string, { operationId: string; id: string; html?: string; json?: string }>()
  for (const [path, bytes] of files) {
    const match = TEMPLATE_FILE.exec(path)
    if (!match) {
      problems.push(problem(path, 'a template is templates/<operation_id>/<template_id>.html with its .json beside it'))
      continue
    }
    const [, operationId, id, ext] = match as unknown as [string, string, string, 'html' | 'json']
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      problems.push(problem(path, 'the file is not UTF-8 text'))
      continue
    }
    const key = `${operationId}/${id}`
    const pair = pairs.get(key) ?? { operationId, id }
    pair[ext] = text
    pairs.set(key, pair)
  }
  const templates: BundledTemplate[] = []
  const seenIds = new Set<string>()
  const perOperation = new Map<string, { count: number; defaults: number }>()
  for (const { operationId, id, html, json } of pairs.values()) {
    const base = `${FOLDER}${operationId}/${id}`
    if (html === undefined || json === undefined) {
      problems.push(problem(`${base}.${html === undefined ? 'html' : 'json'}`, 'a template needs both its .html and its .json file'))
      continue
    }
    if (seenIds.has(id)) {
      problems.push(problem(`${base}.html`, 'another operation has a template with this id'))
      continue
    }
    seenIds.add(id)
    const read = templateFromFiles(html, json)
    if ('problem' in read) {
      problems.push(problem(`${base}.json`, `not a valid template: ${read.problem}`))
      continue
    }
    const counts = perOperation.get(operationId) ?? { count: 0, defaults: 0 }
    counts.count++
    if (read.changes.is_default) counts.defaults++
    perOperation.set(operationId, counts)
    templates.push({ operationId, id, changes: read.changes })
  }
  for (const [operationId, { count, defaults }] of perOperation) {
    if (count > MAX_TEMPLATES_PER_OPERATION)
      problems.push(problem(`${FOLDER}${operationId}`, `an operation has at most ${MAX_TEMPLATES_PER_OPERATION} templates`))
    if (defaults > 1) problems.push(problem(`${FOLDER}${operationId}`, 'at most one template of an operation is its default'))
  }
  return { templates, problems }
}

export function templatesBundlePart(deps: { clock: Clock; revision: Revision }): ApplicationFilesPart {
  return {
    name: 'templates',

    claims: (relativePath) => relativePath.startsWith(FOLDER),

    async exportFiles(db: Kysely<Database>, applicationId: string): Promise<PartFiles> {
      const rows = await db
        .selectFrom('ui_templates')
        .select(['id', 'operation_id', 'html', 'type', 'is_default', 'template_format', 'csp_config', 'ui_meta'])
        .where('application_id', '=', applicationId)
        .orderBy('operation_id')
        .orderBy('id')
        .execute()
      const files: PartFiles = new Map()
      const encoder = new TextEncoder()
      for (const row of rows) {
        const folder = `${FOLDER}${row.operation_id}/`
        files.set(`${folder}${htmlFile(row.id)}`, encoder.encode(row.html))
        const fields = {
          type: row.type,
          is_default: row.is_default === 1,
          template_format: row.template_format,
          csp_config: row.csp_config === null ? null : (JSON.parse(row.csp_config) as Record<string, unknown>),
          ui_meta: row.ui_meta === null ? null : (JSON.parse(row.ui_meta) as Record<string, unknown>),
        }
        files.set(`${folder}${jsonFile(row.id)}`, encoder.encode(templateJson(fields)))
      }
      return files
    },

    check: (files) => readTemplates(files).problems,

    async store(trx: Transaction<Database>, principal: Principal, application: ImportedApplicationRef, files: PartFiles): Promise<Problem[]> {
      const { templates } = readTemplates(files)
      const unknown = templates.filter((template) => !application.operationIds.has(template.operationId))
      if (unknown.length > 0)
        return [...new Set(unknown.map((template) => template.operationId))].map((operationId) =>
          problem(`${FOLDER}${operationId}`, `the application's document has no operation '${operationId}'`),
        )
      if (templates.length === 0) return []
      // The bundle's ids are kept, so that export, import and export again give the same files; an id this server
      // already holds (the same bundle imported twice, as a suffixed application) gets a fresh one.
      const taken = new Set(
        (
          await trx
            .selectFrom('ui_templates')
            .select('id')
            .where(
              'id',
              'in',
              templates.map((template) => template.id),
            )
            .execute()
        ).map((row) => row.id),
      )
      const now = isoTime(deps.clock.now())
      const rows: UiTemplatesTable[] = templates.map(({ operationId, id, changes }) => ({
        id: taken.has(id) ? newId() : id,
        application_id: application.id,
        api_name: application.apiName,
        operation_id: operationId,
        type: changes.type ?? 'result',
        is_default: changes.is_default ? 1 : 0,
        template_format: changes.template_format ?? TEMPLATE_FORMAT,
        html: changes.html!,
        csp_config: changes.csp_config ? JSON.stringify(changes.csp_config) : null,
        ui_meta: changes.ui_meta ? JSON.stringify(changes.ui_meta) : null,
        revision: 1,
        created_at: now,
        created_by: principal.userId,
        updated_at: now,
        updated_by: principal.userId,
      }))
      for (const row of rows) await trx.insertInto('ui_templates').values(row).execute()
      await deps.revision.changed(trx)
      return []
    },
  }
}
