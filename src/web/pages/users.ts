// Users (admins): list, create, change role, deactivate; seat and validation errors shown as the server words them.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, Field, formatDate, h, Loading, Select, useLoad } from '../ui.ts'

interface User {
  id: string
  email: string
  name: string
  role: 'admin' | 'member'
  active: boolean
  created_at: string
}
const ROLES = [
  ['member', 'Member'],
  ['admin', 'Admin'],
] as const

function CreateUser({ onCreated }: { onCreated: (message: string) => void }) {
  const empty = { email: '', name: '', password: '', role: 'member' }
  const [form, setForm] = useState(empty)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState('')
  const submit = async (event: Event) => {
    event.preventDefault()
    setErrors({})
    setError('')
    try {
      const user = await api<User>('POST', '/api/users', form)
      setForm(empty)
      onCreated(`${user.email} can now sign in.`)
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) setErrors(e.fields)
      else setError(errorText(e))
    }
  }
  const set = (key: keyof typeof empty) => (value: string) => setForm({ ...form, [key]: value })
  return h(
    'form',
    { class: 'card', onSubmit: submit, 'aria-labelledby': 'new-user' },
    h('h2', { id: 'new-user' }, 'Add a user'),
    error ? h(Banner, { kind: 'error' }, error) : null,
    h(
      'div',
      { class: 'filters' },
      h(Field, { id: 'new-email', label: 'E-mail', type: 'email', value: form.email, onInput: set('email'), error: errors.email, required: true }),
      h(Field, { id: 'new-name', label: 'Name', value: form.name, onInput: set('name'), error: errors.name, required: true }),
      h(Field, {
        id: 'new-password',
        label: 'Password',
        type: 'password',
        value: form.password,
        onInput: set('password'),
        error: errors.password,
        autocomplete: 'new-password',
        required: true,
      }),
      h(Select, { id: 'new-role', label: 'Role', value: form.role, options: ROLES, onChange: set('role') }),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Add user'),
  )
}

export function UsersPage({ me }: { me: Me }) {
  const users = useLoad(() => api<User[]>('GET', '/api/users'))
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work()
      setNotice({ kind: 'success', text: done })
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    }
    users.reload()
  }
  if (!users.data) return h(Loading, { error: users.error })
  return h(
    'section',
    null,
    h('h1', null, 'Users'),
    h('div', { 'aria-live': 'polite' }, notice ? h(Banner, { kind: notice.kind }, notice.text) : null),
    h(CreateUser, { onCreated: (text) => (setNotice({ kind: 'success', text }), users.reload()) }),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        null,
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Name', 'E-mail', 'Role', 'Status', 'Created', 'Actions'].map((c) => h('th', { scope: 'col', key: c }, c)),
          ),
        ),
        h(
          'tbody',
          null,
          users.data.map((u) =>
            h(
              'tr',
              { key: u.id },
              h('th', { scope: 'row' }, u.name),
              h('td', null, u.email),
              h(
                'td',
                null,
                h('label', { class: 'sr-only', for: `role-${u.id}` }, `Role of ${u.email}`),
                h(
                  'select',
                  {
                    id: `role-${u.id}`,
                    value: u.role,
                    disabled: u.id === me.id || !u.active,
                    onChange: (e: Event) =>
                      act(() => api('PATCH', `/api/users/${u.id}`, { role: (e.currentTarget as HTMLSelectElement).value }), `${u.email}'s role changed.`),
                  },
                  ROLES.map(([value, text]) => h('option', { value, key: value }, text)),
                ),
              ),
              h('td', null, u.active ? 'Active' : 'Deactivated'),
              h('td', null, formatDate(u.created_at)),
              h(
                'td',
                null,
                u.active && u.id !== me.id
                  ? h(
                      'button',
                      {
                        type: 'button',
                        class: 'danger',
                        'aria-label': `Deactivate ${u.email}`,
                        onClick: () => act(() => api('DELETE', `/api/users/${u.id}`), `${u.email} was deactivated.`),
                      },
                      'Deactivate',
                    )
                  : null,
              ),
            ),
          ),
        ),
      ),
    ),
  )
}
