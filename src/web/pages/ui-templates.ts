// An operation's UI templates in the console: the list (default first), an editor with a live preview drawn under the
// template's own CSP, and push / pull with the application's repository, conflicts said plainly with the two ways out.
import { useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import { Banner, Field, h, Loading, useLoad } from '../ui.ts'
import { problems } from './application-detail.ts'
import { type CspDomains, TemplatePreview, templatePolicy, type UiMeta } from './template-preview.ts'

export interface Template {
  id: string
  html: string
  application_id: string
  operation_id: string
  type: string
  is_default: boolean
  template_format: string
  csp_config: CspDomains | null
  ui_meta: UiMeta | null
  resource_uri: string
  updated_at: string
}

export interface SyncResult {
  success: boolean
  commit_sha: string | null
  message: string
  has_conflict: boolean
}

type Notice = { kind: 'success' | 'error' | 'warning'; text: string; conflict?: 'push' | 'pull' } | null

const NEW_TEMPLATE = '<!doctype html>\n<html>\n<head><meta charset="utf-8"><title>Result</title></head>\n<body>\n  <h1>Result</h1>\n</body>\n</html>\n'

/** JSON of an optional object field; empty text means null. */
function parseOptional(text: string, field: string): { value: unknown } | { error: string } {
  if (text.trim() === '') return { value: null }
  try {
    return { value: JSON.parse(text) }
  } catch {
    return { error: `${field} is not valid JSON` }
  }
}

const pretty = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2))

function Editor({
  apiName,
  operationId,
  template,
  canChange,
  hasRepository,
  onSaved,
  notice,
  setNotice,
}: {
  apiName: string
  operationId: string
  template: Template | null
  canChange: boolean
  hasRepository: boolean
  onSaved: (id: string | null) => void
  /** Kept by the list: a save or a pull draws the editor anew, and what it said must stay on screen. */
  notice: Notice
  setNotice: (notice: Notice) => void
}) {
  const [html, setHtml] = useState(template?.html ?? NEW_TEMPLATE)
  const [type, setType] = useState(template?.type ?? 'result')
  const [isDefault, setDefault] = useState(template?.is_default ?? false)
  const [csp, setCsp] = useState(pretty(template?.csp_config))
  const [meta, setMeta] = useState(pretty(template?.ui_meta))
  const [busy, setBusy] = useState(false)
  const parsedCsp = parseOptional(csp, 'CSP domains')
  const parsedMeta = parseOptional(meta, 'UI metadata')
  const policy = templatePolicy(
    'value' in parsedCsp ? (parsedCsp.value as CspDomains | null) : null,
    'value' in parsedMeta ? (parsedMeta.value as UiMeta | null) : null,
  )

  const save = async () => {
    if ('error' in parsedCsp) return setNotice({ kind: 'error', text: parsedCsp.error })
    if ('error' in parsedMeta) return setNotice({ kind: 'error', text: parsedMeta.error })
    setBusy(true)
    const body = { html, type, is_default: isDefault, csp_config: parsedCsp.value, ui_meta: parsedMeta.value }
    try {
      const saved = template
        ? await api<Template>('PUT', `/api/ui-templates/${apiName}/templates/${template.id}`, body)
        : await api<Template>('POST', `/api/ui-templates/${apiName}/operations/${encodeURIComponent(operationId)}`, body)
      setNotice({ kind: 'success', text: 'Template saved. MCP clients get it on their next tools/list.' })
      onSaved(saved.id)
    } catch (e) {
      setNotice({ kind: 'error', text: problems(e).join('; ') })
    } finally {
      setBusy(false)
    }
  }

  const remove = async () => {
    if (!template || !confirm('Delete this template? Its files stay in the repository.')) return
    try {
      await api('DELETE', `/api/ui-templates/${apiName}/templates/${template.id}`)
      onSaved(null)
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    }
  }

  const sync = async (direction: 'push' | 'pull', force = false) => {
    if (!template) return
    setBusy(true)
    setNotice(null)
    try {
      const result = await api<SyncResult>('POST', `/api/ui-templates/vcs/sync/${apiName}/${template.id}`, { direction, force })
      const commit = result.commit_sha ? ` (commit ${result.commit_sha.slice(0, 12)})` : ''
      if (result.has_conflict) setNotice({ kind: 'warning', text: `Conflict: ${result.message}`, conflict: direction })
      else setNotice({ kind: result.success ? 'success' : 'error', text: `${result.message}${result.success ? commit : ''}` })
      if (result.success && direction === 'pull') onSaved(template.id)
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    } finally {
      setBusy(false)
    }
  }

  return h(
    'div',
    { class: 'template-editor' },
    notice
      ? h(
          Banner,
          { kind: notice.kind },
          notice.text,
          notice.conflict
            ? h(
                'div',
                { class: 'row-actions' },
                h('button', { type: 'button', disabled: busy, onClick: () => sync('push', true) }, 'Push mine over theirs'),
                h('button', { type: 'button', disabled: busy, onClick: () => sync('pull', true) }, 'Take the repository version'),
              )
            : null,
        )
      : null,
    h(
      'div',
      { class: 'template-columns' },
      h(
        'div',
        { class: 'template-fields' },
        h(
          'div',
          { class: 'field' },
          h('label', { for: 'template-html' }, 'HTML'),
          h('textarea', {
            id: 'template-html',
            name: 'template-html',
            dir: 'ltr',
            rows: 16,
            spellcheck: false,
            readOnly: !canChange,
            value: html,
            onInput: (e: Event) => setHtml((e.currentTarget as HTMLTextAreaElement).value),
          }),
        ),
        h(Field, { id: 'template-type', label: 'Type', value: type, onInput: setType, hint: 'What the template shows (result by default)' }),
        h(
          'div',
          { class: 'field' },
          h(
            'label',
            null,
            h('input', {
              type: 'checkbox',
              checked: isDefault,
              disabled: !canChange,
              onChange: (e: Event) => setDefault((e.currentTarget as HTMLInputElement).checked),
            }),
            " The operation's default (its tool points at it)",
          ),
        ),
        h(Field, {
          id: 'template-csp',
          label: 'CSP domains (JSON)',
          value: csp,
          onInput: setCsp,
          multiline: true,
          hint: '{"connectDomains": ["https://api.example.com"], "resourceDomains": [...], "frameDomains": [...], "baseUriDomains": [...]}',
          error: 'error' in parsedCsp ? parsedCsp.error : undefined,
        }),
        h(Field, {
          id: 'template-meta',
          label: 'UI metadata (JSON)',
          value: meta,
          onInput: setMeta,
          multiline: true,
          hint: '{"permissions": {"clipboardWrite": {}}, "prefersBorder": true, "domain": "…", "csp": {...}}',
          error: 'error' in parsedMeta ? parsedMeta.error : undefined,
        }),
        canChange
          ? h(
              'div',
              { class: 'row-actions' },
              h('button', { type: 'button', class: 'primary', disabled: busy, onClick: save }, template ? 'Save template' : 'Create template'),
              template ? h('button', { type: 'button', disabled: busy, onClick: remove }, 'Delete') : null,
              template && hasRepository ? h('button', { type: 'button', disabled: busy, onClick: () => sync('push') }, 'Push') : null,
              template && hasRepository ? h('button', { type: 'button', disabled: busy, onClick: () => sync('pull') }, 'Pull') : null,
            )
          : null,
      ),
      h(
        'div',
        { class: 'template-preview-column' },
        h('h4', null, 'Preview'),
        h(TemplatePreview, { html, policy, border: 'value' in parsedMeta ? (parsedMeta.value as UiMeta | null)?.prefersBorder : undefined }),
        h('small', { class: 'hint' }, "Drawn in a sandbox under the template's CSP: ", h('code', { class: 'policy' }, policy)),
      ),
    ),
  )
}

/** The templates of one operation: pick one (or a new one) to edit, preview and sync. */
export function OperationTemplates({ apiName, operationId, canChange }: { apiName: string; operationId: string; canChange: boolean }) {
  const list = useLoad(
    () => api<{ templates: Template[] }>('GET', `/api/ui-templates/${apiName}/operations/${encodeURIComponent(operationId)}`),
    [apiName, operationId],
  )
  const repository = useLoad(
    () =>
      api('GET', `/api/ui-templates/vcs/${apiName}`).then(
        () => true,
        () => false,
      ),
    [apiName],
  )
  const [selected, setSelected] = useState<string | 'new' | null>(null)
  const [version, setVersion] = useState(0)
  const [notice, setNotice] = useState<Notice>(null)
  if (!list.data) return h(Loading, { error: list.error })
  const templates = list.data.templates
  const chosen = selected === 'new' ? null : (templates.find((t) => t.id === selected) ?? templates[0] ?? null)
  const editing = selected === 'new' || chosen !== null
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'templates-title' },
    h('h3', { id: 'templates-title' }, `UI templates of ${operationId}`),
    h('p', { class: 'hint' }, "MCP Apps: HTML an MCP client renders for this operation's result. Served to every agent and MCP app that offers the operation."),
    templates.length === 0 && !editing ? h('p', null, 'No template yet.') : null,
    h(
      'ul',
      { class: 'templates' },
      templates.map((t) =>
        h(
          'li',
          { key: t.id },
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              'aria-pressed': chosen?.id === t.id,
              onClick: () => {
                setNotice(null)
                setSelected(t.id)
              },
            },
            `${t.type}${t.is_default ? ' (default)' : ''}`,
            ' · ',
            h('code', null, t.id.slice(-12)),
          ),
        ),
      ),
    ),
    canChange
      ? h(
          'div',
          { class: 'row-actions' },
          h(
            'button',
            {
              type: 'button',
              onClick: () => {
                setNotice(null)
                setSelected('new')
              },
            },
            'New template',
          ),
        )
      : null,
    editing
      ? h(Editor, {
          // Drawn anew when the stored template changes (a save, a pull), so the editor shows what is stored.
          key: `${chosen?.id ?? 'new'}:${chosen?.updated_at ?? ''}:${version}`,
          apiName,
          operationId,
          template: chosen,
          canChange,
          hasRepository: repository.data === true,
          notice,
          setNotice,
          onSaved: (id) => {
            setSelected(id)
            setVersion((n) => n + 1)
            list.reload()
          },
        })
      : null,
  )
}
