// An application's template repository in the console: the settings form (the token is write-only: the form says
// whether one is stored, never shows it) and push / pull of every template at once with each template's result.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import { Banner, Field, h, useLoad } from '../ui.ts'
import { problems } from './application-detail.ts'
import type { SyncResult } from './ui-templates.ts'

interface Repository {
  repo_url: string
  branch: string
  path: string
  username: string | null
  token_set: boolean
  token_problem: string | null
  author_name: string | null
  author_email: string | null
}

interface ApplicationSync extends SyncResult {
  results: { template_id: string; operation_id: string; success: boolean; has_conflict: boolean; message: string }[]
}

const empty = { repo_url: '', branch: 'main', path: 'agentbox', username: '', token: '', author_name: '', author_email: '' }

export function TemplateRepository({ apiName, canChange }: { apiName: string; canChange: boolean }) {
  const stored = useLoad(
    () => api<Repository>('GET', `/api/ui-templates/vcs/${apiName}`).catch((e) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e))),
    [apiName],
  )
  const [form, setForm] = useState<typeof empty | null>(null)
  const [notice, setNotice] = useState<{ kind: 'success' | 'error' | 'warning'; text: string } | null>(null)
  const [results, setResults] = useState<ApplicationSync['results'] | null>(null)
  const [busy, setBusy] = useState(false)
  const repository = stored.data
  const values =
    form ??
    (repository
      ? {
          repo_url: repository.repo_url,
          branch: repository.branch,
          path: repository.path,
          username: repository.username ?? '',
          token: '',
          author_name: repository.author_name ?? '',
          author_email: repository.author_email ?? '',
        }
      : empty)
  const set = (field: keyof typeof empty) => (value: string) => setForm({ ...values, [field]: value })

  const save = async () => {
    setBusy(true)
    try {
      await api('PUT', `/api/ui-templates/vcs/${apiName}`, {
        repo_url: values.repo_url,
        branch: values.branch || undefined,
        path: values.path,
        username: values.username || null,
        // Left empty: the stored token is kept.
        ...(values.token && { token: values.token }),
        author_name: values.author_name || null,
        author_email: values.author_email || null,
      })
      setForm(null)
      setNotice({ kind: 'success', text: 'Repository saved.' })
      stored.reload()
    } catch (e) {
      setNotice({ kind: 'error', text: problems(e).join('; ') })
    } finally {
      setBusy(false)
    }
  }

  const remove = async () => {
    if (!confirm('Forget this repository and its token? The files in the repository stay.')) return
    try {
      await api('DELETE', `/api/ui-templates/vcs/${apiName}`)
      setForm(null)
      setNotice({ kind: 'success', text: 'Repository removed.' })
      stored.reload()
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    }
  }

  const syncAll = async (direction: 'push' | 'pull') => {
    setBusy(true)
    setResults(null)
    try {
      const result = await api<ApplicationSync>('POST', `/api/ui-templates/vcs/sync/${apiName}`, { direction })
      setNotice({ kind: result.has_conflict ? 'warning' : result.success ? 'success' : 'error', text: result.message })
      setResults(result.results)
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    } finally {
      setBusy(false)
    }
  }

  // Folded away until asked for (open once a repository is set): the application page's own forms come first.
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'repository-title' },
    h(
      'details',
      { open: repository ? true : undefined },
      h('summary', null, h('h3', { id: 'repository-title', class: 'inline-heading' }, 'Template repository')),
      h('p', { class: 'hint' }, 'Templates are pushed to and pulled from <path>/<api_name>/<operation>/<template>.html and .json on the branch.'),
      notice ? h(Banner, { kind: notice.kind }, notice.text) : null,
      repository?.token_problem ? h(Banner, { kind: 'warning' }, `The stored token cannot be used: ${repository.token_problem}`) : null,
      canChange
        ? h(
            'form',
            {
              class: 'repository-form',
              onSubmit: (e: Event) => {
                e.preventDefault()
                void save()
              },
            },
            h(Field, {
              id: 'repo-url',
              label: 'Repository URL',
              value: values.repo_url,
              onInput: set('repo_url'),
              hint: 'https://git.example.com/team/templates.git',
            }),
            h(Field, { id: 'repo-branch', label: 'Branch', value: values.branch, onInput: set('branch') }),
            h(Field, { id: 'repo-path', label: 'Folder', value: values.path, onInput: set('path') }),
            h(Field, { id: 'repo-username', label: 'User name', value: values.username, onInput: set('username'), autocomplete: 'off' }),
            h(Field, {
              id: 'repo-token',
              label: 'Token',
              type: 'password',
              autocomplete: 'off',
              value: values.token,
              onInput: set('token'),
              hint: repository?.token_set ? 'A token is stored; leave empty to keep it.' : 'Sent as the HTTP Basic password; kept sealed, never shown again.',
            }),
            h(Field, { id: 'repo-author-name', label: 'Commit author', value: values.author_name, onInput: set('author_name') }),
            h(Field, { id: 'repo-author-email', label: 'Commit author e-mail', value: values.author_email, onInput: set('author_email') }),
            h(
              'div',
              { class: 'row-actions' },
              h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Save repository'),
              repository ? h('button', { type: 'button', disabled: busy, onClick: remove }, 'Remove') : null,
              repository ? h('button', { type: 'button', disabled: busy, onClick: () => syncAll('push') }, 'Push all templates') : null,
              repository ? h('button', { type: 'button', disabled: busy, onClick: () => syncAll('pull') }, 'Pull all templates') : null,
            ),
          )
        : repository
          ? h('p', null, `${repository.repo_url} · ${repository.branch} · ${repository.path || '(root)'}`)
          : h('p', null, 'No repository configured.'),
      results && results.length > 0
        ? h(
            'ul',
            { class: 'sync-results', 'aria-live': 'polite' },
            results.map((r) =>
              h(
                'li',
                { key: r.template_id, class: r.has_conflict ? 'conflict' : r.success ? 'ok' : 'failed' },
                h('strong', null, r.has_conflict ? 'Conflict' : r.success ? 'OK' : 'Failed'),
                ` ${r.operation_id} · ${r.template_id.slice(-12)}: ${r.message}`,
              ),
            ),
          )
        : null,
    ),
  )
}
