// Sign-in: e-mail and password for an access token kept in sessionStorage; the server's own error on failure.
import { useState } from 'preact/hooks'
import { api, errorText, session } from '../api.ts'
import { Banner, Field, h } from '../ui.ts'

export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError('')
    try {
      const res = await api<{ access_token: string }>('POST', '/api/auth/login', { email, password }, '')
      session.save(res.access_token)
      onSignedIn()
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  return h(
    'main',
    { class: 'narrow' },
    h('h1', null, 'Sign in to Agentbox'),
    error ? h(Banner, { kind: 'error' }, error) : null,
    h(
      'form',
      { onSubmit: submit },
      h(Field, { id: 'email', label: 'E-mail', type: 'email', value: email, onInput: setEmail, autocomplete: 'username', required: true }),
      h(Field, {
        id: 'password',
        label: 'Password',
        type: 'password',
        value: password,
        onInput: setPassword,
        autocomplete: 'current-password',
        required: true,
      }),
      h('button', { type: 'submit', class: 'primary', disabled: busy }, busy ? 'Signing in…' : 'Sign in'),
    ),
  )
}
