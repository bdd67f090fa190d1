// Connected clients: the MCP clients the user approved (one grant per client and MCP URL), with when they were last
// used, and a button that disconnects one at once.
import { useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import { Banner, formatDate, h, Loading, useLoad } from '../ui.ts'

interface Grant {
  id: string
  client_id: string
  client_name: string | null
  resource: string
  scope: string
  created_at: string
  last_used_at: string | null
  expires_at: string
}

export function ConnectedClientsPage() {
  const grants = useLoad(() => api<Grant[]>('GET', '/api/oauth/grants'))
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const revoke = async (grant: Grant) => {
    const name = grant.client_name ?? grant.client_id
    if (!confirm(`Disconnect ${name} from ${grant.resource}? It will have to ask for access again.`)) return
    try {
      await api('DELETE', `/api/oauth/grants/${encodeURIComponent(grant.id)}`)
      setNotice({ kind: 'success', text: `${name} was disconnected.` })
      grants.reload()
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    }
  }
  return h(
    'section',
    null,
    h('h1', null, 'Connected clients'),
    h('p', { class: 'muted' }, 'MCP clients you allowed to act as you at an agent or application endpoint. Disconnecting one takes effect at once.'),
    h('div', { 'aria-live': 'polite' }, notice ? h(Banner, { kind: notice.kind }, notice.text) : null),
    !grants.data
      ? h(Loading, { error: grants.error })
      : grants.data.length === 0
        ? h('p', null, 'No client is connected.')
        : h(
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
                  ['Client', 'MCP endpoint', 'Connected', 'Last used', 'Actions'].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                grants.data.map((grant) =>
                  h(
                    'tr',
                    { key: grant.id },
                    h('th', { scope: 'row' }, grant.client_name ?? grant.client_id),
                    h('td', null, h('code', null, grant.resource)),
                    h('td', null, formatDate(grant.created_at)),
                    h('td', null, formatDate(grant.last_used_at)),
                    h(
                      'td',
                      null,
                      h(
                        'button',
                        { type: 'button', class: 'danger', 'aria-label': `Disconnect ${grant.client_name ?? grant.client_id}`, onClick: () => revoke(grant) },
                        'Disconnect',
                      ),
                    ),
                  ),
                ),
              ),
            ),
          ),
  )
}
