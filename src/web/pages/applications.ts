// Applications: upload an API description (drag and drop), the list of applications, and the one opened at
// /applications/{api_name} (application-detail.ts: credentials, operations, trying one), a link of its own.
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, upload } from '../api.ts'
import { navigate, usePath } from '../router.ts'
import type { Me } from '../session.ts'
import { Banner, Field, h, Link, Loading, useLoad } from '../ui.ts'
import { type Application, ApplicationDetail, problems, type Warning } from './application-detail.ts'

function Upload({ me, onImported }: { me: Me; onImported: (name: string) => void }) {
  const [file, setFile] = useState<File | null>(null)
  const [apiName, setApiName] = useState('')
  const [flags, setFlags] = useState({ replace: false, global_spec: false, shared_security_info: false, create_mcp: false })
  const [dragging, setDragging] = useState(false)
  const [result, setResult] = useState<{ title: string; operations_count: number; warnings: Warning[]; api_name: string } | null>(null)
  const [error, setError] = useState<{ lines: string[]; pointer?: string } | null>(null)
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    if (!file) return setError({ lines: ['Choose an OpenAPI or Swagger file first'] })
    setBusy(true)
    setError(null)
    setResult(null)
    const form = new FormData()
    form.append('file', file)
    if (apiName.trim()) form.append('api_name', apiName.trim())
    for (const [name, on] of Object.entries(flags)) if (on) form.append(name, 'true')
    try {
      const imported = await upload('/api/spec_from_file/', form)
      setResult(imported)
      onImported(imported.api_name)
    } catch (e) {
      const pointer = e instanceof ApiError ? e.entries.find((entry) => typeof entry.ctx?.pointer === 'string')?.ctx?.pointer : undefined
      setError({ lines: problems(e), pointer: typeof pointer === 'string' ? pointer : undefined })
    } finally {
      setBusy(false)
    }
  }
  const flag = (name: keyof typeof flags, label: string) =>
    h(
      'div',
      { class: 'field', key: name },
      h(
        'label',
        null,
        h('input', {
          type: 'checkbox',
          name,
          checked: flags[name],
          onChange: (e: Event) => setFlags({ ...flags, [name]: (e.currentTarget as HTMLInputElement).checked }),
        }),
        ` ${label}`,
      ),
    )
  return h(
    'form',
    { class: 'card', onSubmit: submit, 'aria-labelledby': 'upload-title' },
    h('h2', { id: 'upload-title' }, 'Add an application'),
    h(
      'div',
      {
        class: `dropzone${dragging ? ' dragging' : ''}`,
        onDragOver: (e: DragEvent) => {
          e.preventDefault()
          setDragging(true)
        },
        onDragLeave: () => setDragging(false),
        onDrop: (e: DragEvent) => {
          e.preventDefault()
          setDragging(false)
          const dropped = e.dataTransfer?.files[0]
          if (dropped) setFile(dropped)
        },
      },
      h('label', { for: 'spec-file' }, 'OpenAPI 3.0 / 3.1 or Swagger 2.0 file (JSON or YAML, up to 32 MiB): drop it here or choose it'),
      h('input', {
        id: 'spec-file',
        name: 'file',
        type: 'file',
        accept: '.json,.yaml,.yml',
        onChange: (e: Event) => setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null),
      }),
      file ? h('p', null, `Selected: ${file.name}`) : null,
    ),
    h(
      'div',
      { class: 'filters' },
      h(Field, { id: 'api-name', label: 'Name (optional)', hint: 'Default: from the document title', value: apiName, onInput: setApiName }),
      flag('replace', 'Replace an existing application'),
      me.role === 'admin' ? flag('global_spec', 'Visible to every member') : null,
      flag('shared_security_info', 'One shared credential for everyone'),
      flag('create_mcp', 'Also serve as an MCP app'),
    ),
    error
      ? h(
          Banner,
          { kind: 'error' },
          h(
            'ul',
            null,
            error.lines.map((line) => h('li', { key: line }, line)),
          ),
          error.pointer !== undefined ? h('p', null, 'Where: ', h('code', null, error.pointer || '/ (the whole document)')) : null,
        )
      : null,
    result
      ? h(
          Banner,
          { kind: 'success' },
          h('p', null, `${result.title}: ${result.operations_count} operations imported as ${result.api_name}.`),
          result.warnings.length > 0
            ? h(
                'ul',
                null,
                result.warnings.map((w, i) => h('li', { key: i }, h('code', null, w.pointer || '/'), ` ${w.message}`)),
              )
            : null,
        )
      : null,
    h('button', { type: 'submit', class: 'primary', disabled: busy }, busy ? 'Importing…' : 'Import'),
  )
}

const PREFIX = '/applications/'

/** The api_name the path opens, if any: /applications/{api_name}. */
function openedIn(path: string): string | null {
  if (!path.startsWith(PREFIX)) return null
  const rest = path.slice(PREFIX.length).replace(/\/+$/, '')
  try {
    return rest ? decodeURIComponent(rest) : null
  } catch {
    return null
  }
}

export const applicationPath = (apiName: string) => `${PREFIX}${encodeURIComponent(apiName)}`

export function ApplicationsPage({ me }: { me: Me }) {
  const list = useLoad(() => api<Application[]>('GET', '/api/applications'))
  const selected = openedIn(usePath())
  const app = list.data?.find((candidate) => candidate.api_name === selected)
  // Opened from a link or the list: bring the application into view (the list may be long).
  useEffect(() => {
    if (app) document.getElementById('application-detail')?.scrollIntoView({ block: 'start' })
  }, [app?.api_name])
  return h(
    'section',
    null,
    h('h1', null, 'Applications'),
    h(
      'p',
      null,
      "APIs the organisation uses, imported from their OpenAPI descriptions. Each operation can be called with your own credentials, or the organisation's.",
    ),
    h(Upload, {
      me,
      onImported: (name) => {
        list.reload()
        navigate(applicationPath(name))
      },
    }),
    list.data
      ? list.data.length === 0
        ? h('p', null, 'No applications yet.')
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', { scope: 'col' }, 'Application'),
                  h('th', { scope: 'col' }, 'Operations'),
                  h('th', { scope: 'col' }, 'Visible to'),
                  h('th', { scope: 'col' }, ''),
                ),
              ),
              h(
                'tbody',
                null,
                list.data.map((row) =>
                  h(
                    'tr',
                    { key: row.api_name },
                    h('th', { scope: 'row', 'data-label': 'Application' }, row.title, h('br', null), h('small', null, row.api_name)),
                    h('td', { 'data-label': 'Operations' }, String(row.operations_count)),
                    h('td', { 'data-label': 'Visible to' }, row.global_spec ? 'Everyone' : 'Owner and admins'),
                    h(
                      'td',
                      null,
                      h(
                        Link,
                        { to: applicationPath(row.api_name), current: selected === row.api_name },
                        'Open',
                        h('span', { class: 'sr-only' }, ` ${row.title}`),
                      ),
                    ),
                  ),
                ),
              ),
            ),
          )
      : h(Loading, { error: list.error }),
    app
      ? h(
          'div',
          { id: 'application-detail' },
          h(ApplicationDetail, {
            app,
            me,
            key: app.api_name,
            onDeleted: () => {
              navigate('/applications')
              list.reload()
            },
          }),
        )
      : selected !== null && list.data
        ? h(Banner, { kind: 'error' }, `No application is named “${selected}”, or it is not visible to you.`)
        : null,
  )
}
