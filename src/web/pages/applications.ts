// Applications: upload an API description (drag and drop), browse its operations and their input schemas, connect or
// clear your credentials, and try an operation (dry run or a real call) with its response shown.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText, upload } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, Field, h, Loading, useLoad } from '../ui.ts'

interface Warning {
  pointer: string
  message: string
}
interface Application {
  api_name: string
  title: string
  description: string
  version: string
  openapi_version: string
  operations_count: number
  global_spec: boolean
  shared_security_info: boolean
  base_url: string | null
  server_url: string | null
  owner_id: string
  warnings: Warning[]
}
interface Operation {
  operation_id: string
  method: string
  path: string
  summary: string
  description: string
  tags: string[]
  input_schema: Record<string, unknown>
  deprecated: boolean
}
interface Credential {
  scheme: string
  type: 'basic' | 'bearer' | 'api_key'
  scope: 'org' | 'user'
  connected: boolean
  reason?: string
  updated_at: string | null
}
interface CallResult {
  status: number
  headers: Record<string, string>
  body: unknown
  truncated: boolean
  duration_ms: number
  dry_run: boolean
}

/** Every problem a 422 names (`loc` joined), else the sentence. */
function problems(error: unknown): string[] {
  if (error instanceof ApiError && Object.keys(error.fields).length > 0) return Object.entries(error.fields).map(([field, message]) => `${field}: ${message}`)
  return [errorText(error)]
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2)

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

function Credentials({ app }: { app: Application }) {
  const list = useLoad(() => api<Credential[]>('GET', `/api/applications/${app.api_name}/credentials`), [app.api_name])
  const [values, setValues] = useState<Record<string, string>>({})
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  if (!list.data) return h(Loading, { error: list.error })
  const fieldsOf = (type: Credential['type']) => (type === 'basic' ? ['username', 'password'] : type === 'bearer' ? ['token'] : ['api_key'])
  const save = async (credential: Credential) => {
    const body: Record<string, string> = { scheme: credential.scheme }
    for (const field of fieldsOf(credential.type)) body[field] = values[`${credential.scheme}.${field}`] ?? ''
    try {
      await api('PUT', `/api/applications/${app.api_name}/credentials`, body)
      setNotice({ kind: 'success', text: `${credential.scheme} connected.` })
      setValues({})
    } catch (e) {
      setNotice({ kind: 'error', text: problems(e).join('; ') })
    }
    list.reload()
  }
  const clear = async (credential: Credential) => {
    try {
      await api('DELETE', `/api/applications/${app.api_name}/credentials/${encodeURIComponent(credential.scheme)}`)
      setNotice({ kind: 'success', text: `${credential.scheme} cleared.` })
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    }
    list.reload()
  }
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'credentials-title' },
    h('h3', { id: 'credentials-title' }, app.shared_security_info ? "The organisation's credentials" : 'Your credentials'),
    notice ? h(Banner, { kind: notice.kind }, notice.text) : null,
    list.data.length === 0 ? h('p', null, 'This API needs no credentials.') : null,
    list.data.map((credential) =>
      h(
        'form',
        {
          key: credential.scheme,
          class: 'inline-form',
          onSubmit: (e: Event) => {
            e.preventDefault()
            void save(credential)
          },
        },
        h(
          'p',
          null,
          h('strong', null, credential.scheme),
          ` (${credential.type}) — `,
          credential.connected ? 'connected' : 'not connected',
          credential.reason ? `: ${credential.reason}` : '',
        ),
        fieldsOf(credential.type).map((field) =>
          h(Field, {
            key: field,
            id: `cred-${credential.scheme}-${field}`,
            label: field === 'api_key' ? 'API key' : field[0]!.toUpperCase() + field.slice(1),
            type: field === 'username' ? 'text' : 'password',
            autocomplete: 'off',
            value: values[`${credential.scheme}.${field}`] ?? '',
            onInput: (value: string) => setValues({ ...values, [`${credential.scheme}.${field}`]: value }),
          }),
        ),
        h(
          'div',
          { class: 'row-actions' },
          h('button', { type: 'submit' }, 'Save'),
          credential.connected ? h('button', { type: 'button', onClick: () => clear(credential) }, 'Clear') : null,
        ),
      ),
    ),
  )
}

function TryOperation({ app, operation }: { app: Application; operation: Operation }) {
  const [args, setArgs] = useState('{}')
  const [result, setResult] = useState<CallResult | null>(null)
  const [error, setError] = useState<string[] | null>(null)
  const [busy, setBusy] = useState(false)
  const call = async (dryRun: boolean) => {
    setError(null)
    setResult(null)
    let parsed: unknown
    try {
      parsed = JSON.parse(args)
    } catch {
      return setError(['The arguments are not valid JSON'])
    }
    setBusy(true)
    try {
      setResult(
        await api<CallResult>('POST', `/api/applications/${app.api_name}/operations/${encodeURIComponent(operation.operation_id)}/execute`, {
          arguments: parsed,
          dry_run: dryRun,
        }),
      )
    } catch (e) {
      setError(problems(e))
    } finally {
      setBusy(false)
    }
  }
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'operation-title' },
    h('h3', { id: 'operation-title' }, h('code', null, `${operation.method} ${operation.path}`), ` ${operation.operation_id}`),
    operation.summary ? h('p', null, operation.summary) : null,
    operation.deprecated ? h(Banner, { kind: 'warning' }, 'This operation is deprecated.') : null,
    h('h4', null, 'Input schema'),
    h('pre', { class: 'data' }, pretty(operation.input_schema)),
    // JSON reads left to right in a right-to-left page too.
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'arguments' }, 'Arguments (JSON)'),
      h('textarea', {
        id: 'arguments',
        name: 'arguments',
        dir: 'ltr',
        rows: 4,
        spellcheck: false,
        value: args,
        onInput: (e: Event) => setArgs((e.currentTarget as HTMLTextAreaElement).value),
      }),
    ),
    h(
      'div',
      { class: 'row-actions' },
      h('button', { type: 'button', disabled: busy, onClick: () => call(true) }, 'Dry run'),
      h('button', { type: 'button', class: 'primary', disabled: busy, onClick: () => call(false) }, 'Call'),
    ),
    error
      ? h(
          Banner,
          { kind: 'error' },
          h(
            'ul',
            null,
            error.map((line) => h('li', { key: line }, line)),
          ),
        )
      : null,
    result
      ? h(
          'div',
          { class: 'response', 'aria-live': 'polite' },
          h(
            'p',
            null,
            `Status ${result.status}${result.dry_run ? ' (dry run)' : ` in ${result.duration_ms} ms`}${result.truncated ? ', truncated at 5 MiB' : ''}`,
          ),
          h('pre', { class: 'data' }, pretty(result.headers)),
          h('pre', { class: 'data', 'data-testid': 'response-body' }, typeof result.body === 'string' ? result.body : pretty(result.body)),
        )
      : null,
  )
}

function ApplicationDetail({ app, me, onDeleted }: { app: Application; me: Me; onDeleted: () => void }) {
  const operations = useLoad(() => api<Operation[]>('GET', `/api/applications/${app.api_name}/operations`), [app.api_name])
  const [filter, setFilter] = useState('')
  const [selected, setSelected] = useState<string | null>(null)
  const [error, setError] = useState('')
  const remove = async () => {
    if (!confirm(`Delete ${app.title} with its operations and credentials?`)) return
    try {
      await api('DELETE', `/api/applications/${app.api_name}`)
      onDeleted()
    } catch (e) {
      setError(errorText(e))
    }
  }
  const needle = filter.trim().toLowerCase()
  const shown = (operations.data ?? []).filter((op) => !needle || `${op.operation_id} ${op.method} ${op.path} ${op.summary}`.toLowerCase().includes(needle))
  const operation = operations.data?.find((op) => op.operation_id === selected)
  const canChange = me.role === 'admin' || me.id === app.owner_id
  return h(
    'section',
    { 'aria-labelledby': 'app-title' },
    h('h2', { id: 'app-title' }, app.title),
    h(
      'p',
      null,
      `${app.api_name} · version ${app.version} · OpenAPI ${app.openapi_version} · calls go to ${app.base_url ?? app.server_url ?? '(no server URL: set base_url)'}`,
    ),
    error ? h(Banner, { kind: 'error' }, error) : null,
    canChange ? h('div', { class: 'row-actions' }, h('button', { type: 'button', onClick: remove }, 'Delete application')) : null,
    h(Credentials, { app }),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'operations-title' },
      h('h3', { id: 'operations-title' }, `Operations (${app.operations_count})`),
      h(Field, { id: 'operation-filter', label: 'Filter operations', value: filter, onInput: setFilter }),
      operations.data
        ? h(
            'ul',
            { class: 'operations' },
            shown
              .slice(0, 200)
              .map((op) =>
                h(
                  'li',
                  { key: op.operation_id },
                  h(
                    'button',
                    { type: 'button', class: 'link', 'aria-pressed': selected === op.operation_id, onClick: () => setSelected(op.operation_id) },
                    h('code', null, op.method),
                    ` ${op.path} — ${op.operation_id}`,
                    op.summary ? ` · ${op.summary}` : '',
                  ),
                ),
              ),
          )
        : h(Loading, { error: operations.error }),
      shown.length > 200 ? h('p', null, `${shown.length - 200} more: narrow the filter.`) : null,
    ),
    operation ? h(TryOperation, { app, operation, key: operation.operation_id }) : null,
  )
}

export function ApplicationsPage({ me }: { me: Me }) {
  const list = useLoad(() => api<Application[]>('GET', '/api/applications'))
  const [selected, setSelected] = useState<string | null>(null)
  const app = list.data?.find((candidate) => candidate.api_name === selected)
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
        setSelected(name)
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
                    h('td', null, h('button', { type: 'button', onClick: () => setSelected(row.api_name), 'aria-pressed': selected === row.api_name }, 'Open')),
                  ),
                ),
              ),
            ),
          )
      : h(Loading, { error: list.error }),
    app
      ? h(ApplicationDetail, {
          app,
          me,
          key: app.api_name,
          onDeleted: () => {
            setSelected(null)
            list.reload()
          },
        })
      : null,
  )
}
