// Settings' "Change password" form: POST /api/auth/password with the current and the new password. Success ends the
// account's other sessions and returns a new access token, which this tab keeps using.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText, session } from '../api.ts'
import { Banner, Field, h } from '../ui.ts'

const MIN_LENGTH = 12
const EMPTY = { current: '', next: '', confirm: '' }

type Notice = { kind: 'success' | 'error'; text: string } | null

export function ChangePassword() {
  const [form, setForm] = useState(EMPTY)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [notice, setNotice] = useState<Notice>(null)
  const [busy, setBusy] = useState(false)
  const set = (key: keyof typeof EMPTY) => (value: string) => setForm({ ...form, [key]: value })

  const submit = async (event: Event) => {
    event.preventDefault()
    setNotice(null)
    const problems: Record<string, string> = {}
    if (!form.current) problems.current = 'Enter your current password'
    if (form.next.length < MIN_LENGTH) problems.next = `At least ${MIN_LENGTH} characters`
    else if (form.next !== form.confirm) problems.confirm = 'The two new passwords differ'
    setErrors(problems)
    if (Object.keys(problems).length > 0) return
    setBusy(true)
    try {
      const res = await api<{ access_token: string }>('POST', '/api/auth/password', { current_password: form.current, new_password: form.next })
      // The change revoked every token of the account, this tab's too: the answer carries the one to go on with.
      session.save(res.access_token)
      setForm(EMPTY)
      setNotice({ kind: 'success', text: 'Password changed. Your other sessions were signed out; personal API tokens keep working.' })
    } catch (e) {
      // A wrong current password is 403 (older servers answered 400); it counts like a failed sign-in.
      if (e instanceof ApiError && (e.status === 403 || e.status === 400)) setErrors({ current: 'The current password is wrong' })
      else if (e instanceof ApiError && e.status === 429)
        setNotice({ kind: 'error', text: `Too many wrong passwords: wait before trying again. (${e.message})` })
      else if (e instanceof ApiError && Object.keys(e.fields).length > 0)
        setErrors({ current: e.fields.current_password ?? '', next: e.fields.new_password ?? '' })
      else setNotice({ kind: 'error', text: errorText(e) })
    } finally {
      setBusy(false)
    }
  }

  return h(
    'form',
    { class: 'card', onSubmit: submit, noValidate: true, 'aria-labelledby': 'password-title' },
    h('h2', { id: 'password-title' }, 'Change password'),
    h('div', { 'aria-live': 'polite' }, notice ? h(Banner, { kind: notice.kind }, notice.text) : null),
    h(Field, {
      id: 'current-password',
      label: 'Current password',
      type: 'password',
      value: form.current,
      onInput: set('current'),
      error: errors.current,
      autocomplete: 'current-password',
      required: true,
    }),
    h(Field, {
      id: 'new-password',
      label: 'New password',
      hint: `At least ${MIN_LENGTH} characters. Signs out your other sessions.`,
      type: 'password',
      value: form.next,
      onInput: set('next'),
      error: errors.next,
      autocomplete: 'new-password',
      required: true,
    }),
    h(Field, {
      id: 'confirm-password',
      label: 'Confirm new password',
      type: 'password',
      value: form.confirm,
      onInput: set('confirm'),
      error: errors.confirm,
      autocomplete: 'new-password',
      required: true,
    }),
    h('button', { type: 'submit', class: 'primary', disabled: busy }, busy ? 'Changing…' : 'Change password'),
  )
}
