// A template as its two files say it (`<id>.html` and `<id>.json`, written by a repository's users or carried in a
// bundle), checked like a PUT: what a pull and a bundle import store.
import { Value } from '@sinclair/typebox/value'
import { CspConfig, UiMeta } from './schema.ts'
import { fieldIssues, type TemplateChanges } from './templates.ts'

/** The template as the repository's files say it, checked like a PUT: the changes to store, or why not. */
export function templateFromFiles(html: string, jsonText: string): { changes: TemplateChanges } | { problem: string } {
  let fields: Record<string, unknown>
  try {
    const parsed = JSON.parse(jsonText) as unknown
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { problem: 'its .json file is not a JSON object' }
    fields = parsed as Record<string, unknown>
  } catch {
    return { problem: 'its .json file is not valid JSON' }
  }
  const changes = {
    html,
    type: fields.type ?? 'result',
    is_default: fields.is_default ?? false,
    template_format: fields.template_format ?? 'mcp-app',
    csp_config: fields.csp_config ?? null,
    ui_meta: fields.ui_meta ?? null,
  }
  const issues = fieldIssues(changes)
  if (changes.csp_config !== null && !Value.Check(CspConfig, changes.csp_config))
    issues.push({ loc: ['csp_config'], msg: 'csp_config is not valid', type: 'value_error' })
  if (changes.ui_meta !== null && !Value.Check(UiMeta, changes.ui_meta)) issues.push({ loc: ['ui_meta'], msg: 'ui_meta is not valid', type: 'value_error' })
  if (issues.length > 0) return { problem: issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ') }
  return { changes: changes as TemplateChanges }
}
