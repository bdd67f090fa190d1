// One application in the console: its credentials (connect or clear), its operations with their input schemas, and a
// form to dry-run or call one with the response shown.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, Field, h, Loading, useLoad } from '../ui.ts'
import { McpConnect } from './mcp-connect.ts'
import { TemplateRepository } from './template-repository.ts'
import { OperationTemplates } from './ui-templates.ts'

export interface Warning {
  pointer: string
  message: string
}
export interface Application {
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
  mcp_url: string | null
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

/** Operations asked for per request: the list pages by default, and the console filters over all of them. */
const OPERATIONS_PAGE = 500

/** Every operation of an application, read page by page in document order. */
export async function allOperations<T>(apiName: string): Promise<T[]> {
  const all: T[] = []
  for (let offset = 0; ; offset += OPERATIONS_PAGE) {
    const page = await api<T[]>('GET', `/api/applications/${encodeURIComponent(apiName)}/operations?limit=${OPERATIONS_PAGE}&offset=${offset}`)
    all.push(...page)
    if (page.length < OPERATIONS_PAGE) return all
  }
}

/** Every problem a 422 names (`loc` joined), else the sentence. */
export function problems(error: unknown): string[] {
  if (error instanceof ApiError && Object.keys(error.fields).length > 0) return Object.entries(error.fields).map(([field, message]) => `${field}: ${message}`)
  return [errorText(error)]
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2)

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

export function ApplicationDetail({ app, me, onDeleted }: { app: Application; me: Me; onDeleted: () => void }) {
  const operations = useLoad(() => allOperations<Operation>(app.api_name), [app.api_name])
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
    app.mcp_url
      ? h(McpConnect, {
          name: app.api_name,
          url: app.mcp_url,
          heading: 'MCP app: connect an MCP client',
          offer: `/api/applications/${encodeURIComponent(app.api_name)}/tools`,
        })
      : null,
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
    operation
      ? h(OperationTemplates, { apiName: app.api_name, operationId: operation.operation_id, canChange, key: `templates-${operation.operation_id}` })
      : null,
    h(TemplateRepository, { apiName: app.api_name, canChange }),
  )
}
