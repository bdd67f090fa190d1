// How a template is written to its repository, shared by the server and the git worker: where its two files live
// (`<path>/<api_name>/<operation_id>/<template_id>.html` and `.json`), the `.json` file's canonical text, and the git
// blob id of a file's content (what sync compares: equal content, equal id).
import { createHash } from 'node:crypto'

/** What the `.json` file beside a template's HTML holds. */
export interface TemplateFileFields {
  readonly type: string
  readonly is_default: boolean
  readonly template_format: string
  readonly csp_config: Readonly<Record<string, unknown>> | null
  readonly ui_meta: Readonly<Record<string, unknown>> | null
}

/** JSON with object keys sorted at every level and two-space indents, ending in a newline (as editors leave it). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys)
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sortedKeys(v)]),
    )
  return value
}

/** The `.json` file's text: the same fields always give the same bytes, so an unchanged template never makes a commit. */
export function templateJson(fields: TemplateFileFields): string {
  const { type, is_default, template_format, csp_config, ui_meta } = fields
  return `${JSON.stringify(sortedKeys({ type, is_default, template_format, csp_config, ui_meta }), null, 2)}\n`
}

/**
 * The text `templateJson` would write for a `.json` file someone else wrote (reformatted, keys reordered, null fields
 * left out), or null when it is not a JSON object: two files that say the same thing compare equal.
 */
export function canonicalTemplateJson(text: string): string | null {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null
  const fields = value as Record<string, unknown>
  return templateJson({
    type: fields.type as string,
    is_default: fields.is_default as boolean,
    template_format: fields.template_format as string,
    csp_config: (fields.csp_config ?? null) as TemplateFileFields['csp_config'],
    ui_meta: (fields.ui_meta ?? null) as TemplateFileFields['ui_meta'],
  })
}

/** The git blob id (SHA-1 of `blob <size>\0<content>`) of a file's content. */
export function blobId(content: string | Uint8Array): string {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex')
}

/** The folder of an operation's templates, relative to the repository's root. */
export function operationFolder(root: string, apiName: string, operationId: string): string {
  return [...root.split('/').filter(Boolean), apiName, operationId].join('/')
}

export const htmlFile = (templateId: string) => `${templateId}.html`
export const jsonFile = (templateId: string) => `${templateId}.json`
