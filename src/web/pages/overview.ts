// Overview: health, version and the licence (status, expiry, seats), with the evaluation, grace-period and test-licence banners.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, Field, formatDate, h, Loading, useLoad } from '../ui.ts'

interface Health {
  status: string
  version: string
  uptime_s: number
  license: { status: string; mode: string; expires_at: string | null; evaluation: boolean }
}
interface License {
  org: string
  seats: number
  seats_used: number
  expires_at: string
  status: string
  evaluation: boolean
}

/** Admins paste a signed licence here: after an evaluation, or to renew. */
function ApplyLicence({ onApplied }: { onApplied: () => void }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState('')
  const [done, setDone] = useState('')
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setError('')
    setDone('')
    setBusy(true)
    try {
      const res = await api<{ license: License }>('POST', '/api/org/apply_license', { license_token: token.trim() })
      setToken('')
      setDone(`Licence applied for ${res.license.org}: ${res.license.seats} seats until ${formatDate(res.license.expires_at)}.`)
      onApplied()
    } catch (e) {
      setError(e instanceof ApiError ? (e.fields.license_token ?? e.message) : errorText(e))
    } finally {
      setBusy(false)
    }
  }
  return h(
    'form',
    { class: 'apply-licence', onSubmit: submit, noValidate: true },
    h('h2', null, 'Apply a licence'),
    done ? h(Banner, { kind: 'success' }, done) : null,
    h(Field, {
      id: 'apply_license_token',
      label: 'Licence token',
      value: token,
      onInput: setToken,
      error: error || undefined,
      multiline: true,
      required: true,
    }),
    h('button', { type: 'submit', class: 'primary', disabled: busy || token.trim() === '' }, busy ? 'Applying…' : 'Apply licence'),
  )
}

export function LicenseBanners({ health }: { health: Health | undefined }) {
  if (!health) return null
  return h(
    'div',
    null,
    health.license.mode === 'test'
      ? h(Banner, { kind: 'info' }, 'Test licence: this instance trusts only the public test key. Do not use it in production.')
      : null,
    health.license.evaluation && health.license.status === 'valid'
      ? h(
          Banner,
          { kind: 'info' },
          `Evaluation: this instance runs on a 30-day evaluation with 5 seats, until ${formatDate(health.license.expires_at)}. An admin applies a licence on this page to keep going.`,
        )
      : null,
    health.license.status === 'grace'
      ? h(
          Banner,
          { kind: 'warning' },
          `The licence expired on ${formatDate(health.license.expires_at)}. Everything keeps working during the 14-day grace period: apply a new licence before it ends.`,
        )
      : null,
    health.license.status === 'expired'
      ? h(Banner, { kind: 'error' }, 'The licence has expired: changes are blocked until a new licence is applied. Reading still works.')
      : null,
  )
}

export function OverviewPage({ me }: { me: Me }) {
  const health = useLoad(() => api<Health>('GET', '/api/health'))
  const license = useLoad(() => (me.role === 'admin' ? api<License>('GET', '/api/org/license') : Promise.resolve(undefined)))
  if (!health.data) return h(Loading, { error: health.error })
  const lic = license.data
  const row = (term: string, value: string) => h('div', { class: 'stat' }, h('dt', null, term), h('dd', null, value))
  return h(
    'section',
    null,
    h('h1', null, 'Overview'),
    h(LicenseBanners, { health: health.data }),
    h(
      'dl',
      { class: 'stats' },
      row('Health', health.data.status),
      row('Version', health.data.version),
      row('Licence status', health.data.license.status),
      row('Licence expires', formatDate(lic?.expires_at ?? health.data.license.expires_at)),
      lic ? row('Seats used', `${lic.seats_used} / ${lic.seats}`) : null,
      lic ? row('Organisation', lic.org) : null,
      lic?.evaluation ? row('Licence', '30-day evaluation') : null,
    ),
    license.error ? h(Banner, { kind: 'error' }, license.error) : null,
    me.role === 'admin' ? h(ApplyLicence, { onApplied: () => (health.reload(), license.reload()) }) : null,
  )
}
