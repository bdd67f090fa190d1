// Overview: health, version and the licence (status, expiry, seats), with the grace-period and test-licence banners.
import { api } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, formatDate, h, Loading, useLoad } from '../ui.ts'

interface Health { status: string; version: string; uptime_s: number; license: { status: string; mode: string; expires_at: string | null } }
interface License { org: string; seats: number; seats_used: number; expires_at: string; status: string }

export function LicenseBanners({ health }: { health: Health | undefined }) {
  if (!health) return null
  return h('div', null,
    health.license.mode === 'test' ? h(Banner, { kind: 'info' }, 'Test licence: this instance trusts only the public test key. Do not use it in production.') : null,
    health.license.status === 'grace'
      ? h(Banner, { kind: 'warning' }, `The licence expired on ${formatDate(health.license.expires_at)}. Everything keeps working during the 14-day grace period: apply a new licence before it ends.`)
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
  return h('section', null,
    h('h1', null, 'Overview'),
    h(LicenseBanners, { health: health.data }),
    h('dl', { class: 'stats' },
      row('Health', health.data.status),
      row('Version', health.data.version),
      row('Licence status', health.data.license.status),
      row('Licence expires', formatDate(lic?.expires_at ?? health.data.license.expires_at)),
      lic ? row('Seats used', `${lic.seats_used} / ${lic.seats}`) : null,
      lic ? row('Organisation', lic.org) : null,
    ),
    license.error ? h(Banner, { kind: 'error' }, license.error) : null,
  )
}
