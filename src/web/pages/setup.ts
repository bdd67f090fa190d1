// First-run wizard: a licence (or a 30-day evaluation, named by the organisation) + first admin, posted with the setup link's
// token; shows the organisation token once.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import { navigate } from '../router.ts'
import { Banner, CopyButton, Field, h } from '../ui.ts'

type Form = {
  license_token: string
  org_name: string
  admin_email: string
  admin_name: string
  admin_password: string
  confirm: string
  setup_token: string
}

export function SetupPage() {
  const linkToken = new URLSearchParams(location.search).get('token') ?? ''
  const [form, setForm] = useState<Form>({
    license_token: '',
    org_name: '',
    admin_email: '',
    admin_name: '',
    admin_password: '',
    confirm: '',
    setup_token: linkToken,
  })
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [formError, setFormError] = useState('')
  const [busy, setBusy] = useState(false)
  const [orgToken, setOrgToken] = useState('')
  // The server takes the licence field's value `evaluation` as "start the 30-day evaluation".
  const [evaluation, setEvaluation] = useState(false)
  const set = (key: keyof Form) => (value: string) => setForm({ ...form, [key]: value })

  const submit = async (event: Event) => {
    event.preventDefault()
    setFormError('')
    if (form.admin_password !== form.confirm) return setErrors({ confirm: 'The two passwords differ' })
    setErrors({})
    setBusy(true)
    try {
      const body = {
        license_token: evaluation ? 'evaluation' : form.license_token.trim(),
        // A signed licence names the organisation itself; only an evaluation is named here.
        ...(evaluation && form.org_name.trim() && { org_name: form.org_name.trim() }),
        admin_email: form.admin_email,
        admin_name: form.admin_name,
        admin_password: form.admin_password,
      }
      const res = await api<{ tenant_org_token: string }>('POST', '/api/tenant/setup', body, form.setup_token.trim() || 'missing')
      setOrgToken(res.tenant_org_token)
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) setErrors(e.fields)
      else if (e instanceof ApiError && e.status === 401)
        setErrors({ setup_token: 'This setup token is not valid: use the link the server printed at first start' })
      else setFormError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  if (orgToken) {
    return h(
      'main',
      { class: 'narrow' },
      h('h1', null, 'Agentbox is ready'),
      h(Banner, { kind: 'warning' }, 'This is your organisation token. Copy it and keep it safe now: it will not be shown again.'),
      h('label', { for: 'org-token' }, 'Organisation token'),
      h('input', { id: 'org-token', class: 'token', readOnly: true, value: orgToken, onFocus: (e: Event) => (e.currentTarget as HTMLInputElement).select() }),
      h(
        'div',
        { class: 'actions' },
        h(CopyButton, { text: orgToken, label: 'Copy token' }),
        h('button', { type: 'button', class: 'primary', onClick: () => navigate('/login') }, 'Continue to sign in'),
      ),
    )
  }

  return h(
    'main',
    { class: 'narrow' },
    h('h1', null, 'Set up Agentbox'),
    h('p', null, 'Enter your licence, or start a 30-day evaluation, and create the first administrator.'),
    formError ? h(Banner, { kind: 'error' }, formError) : null,
    h(
      'form',
      { onSubmit: submit, noValidate: true },
      linkToken
        ? null
        : h(Field, {
            id: 'setup_token',
            label: 'Setup token',
            value: form.setup_token,
            onInput: set('setup_token'),
            error: errors.setup_token,
            autocomplete: 'off',
            required: true,
          }),
      linkToken && errors.setup_token ? h(Banner, { kind: 'error' }, errors.setup_token) : null,
      h(
        'fieldset',
        { class: 'choice' },
        h('legend', null, 'Licence'),
        h('label', null, h('input', { type: 'radio', name: 'licence-kind', checked: !evaluation, onChange: () => setEvaluation(false) }), ' I have a licence'),
        h(
          'label',
          null,
          h('input', { type: 'radio', name: 'licence-kind', id: 'evaluation', checked: evaluation, onChange: () => setEvaluation(true) }),
          ' Start a 30-day evaluation (5 users; an admin applies a licence later on the Overview page)',
        ),
      ),
      evaluation && errors.license_token ? h(Banner, { kind: 'error' }, errors.license_token) : null,
      evaluation
        ? h(Field, {
            id: 'org_name',
            label: 'Organisation name',
            hint: 'Shown on the Overview page (empty: “Evaluation”); a licence applied later names it instead',
            value: form.org_name,
            onInput: set('org_name'),
            error: errors.org_name,
            autocomplete: 'organization',
          })
        : h(Field, {
            id: 'license_token',
            label: 'Licence token',
            value: form.license_token,
            onInput: set('license_token'),
            error: errors.license_token,
            multiline: true,
            required: true,
          }),
      h(Field, {
        id: 'admin_email',
        label: 'Admin e-mail',
        type: 'email',
        value: form.admin_email,
        onInput: set('admin_email'),
        error: errors.admin_email,
        autocomplete: 'email',
        required: true,
      }),
      h(Field, {
        id: 'admin_name',
        label: 'Admin name',
        value: form.admin_name,
        onInput: set('admin_name'),
        error: errors.admin_name,
        autocomplete: 'name',
        required: true,
      }),
      h(Field, {
        id: 'admin_password',
        label: 'Admin password',
        hint: 'At least 12 characters',
        type: 'password',
        value: form.admin_password,
        onInput: set('admin_password'),
        error: errors.admin_password,
        autocomplete: 'new-password',
        required: true,
      }),
      h(Field, {
        id: 'confirm',
        label: 'Confirm password',
        type: 'password',
        value: form.confirm,
        onInput: set('confirm'),
        error: errors.confirm,
        autocomplete: 'new-password',
        required: true,
      }),
      h('button', { type: 'submit', class: 'primary', disabled: busy }, busy ? 'Setting up…' : 'Finish setup'),
    ),
  )
}
