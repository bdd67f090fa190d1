// Consent: an MCP client asks to act as the signed-in user at one agent's or application's MCP URL; the user approves
// or denies, and the browser goes back to the client with a one-time code or access_denied.
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, h, Loading, useLoad } from '../ui.ts'

interface AuthorizationRequest {
  id: string
  client_id: string
  client_name: string | null
  client_uri: string | null
  redirect_uri: string
  redirect_host: string
  resource: string
  resource_kind: 'agent' | 'agent_design' | 'app' | 'gateway'
  resource_name: string
  resource_description: string
  scope: string
  expires_at: string
}

/** What the user can do about a request that cannot be decided any more. */
function loadError(error: unknown): string {
  if (error instanceof ApiError && error.status === 404) return 'This request has expired or does not exist. Go back to the application and connect again.'
  if (error instanceof ApiError && error.status === 409) return 'This request was already answered. Go back to the application.'
  return errorText(error)
}

const ACCESS: Record<AuthorizationRequest['resource_kind'], string> = {
  agent: "use this agent's tools (its workflows, the applications it uses and its skills)",
  agent_design: "read and change this agent's draft, run it and publish it",
  app: "call this application's operations",
  gateway: 'use the tools of the MCP servers you connected in Agentbox, with your own tokens for them',
}

export function OauthConsentPage({ me }: { me: Me }) {
  const id = new URLSearchParams(location.search).get('request') ?? ''
  const [failure, setFailure] = useState<unknown>(undefined)
  const [busy, setBusy] = useState(false)
  const request = useLoad<AuthorizationRequest>(
    () => (id ? api('GET', `/api/oauth/requests/${encodeURIComponent(id)}`) : Promise.reject(new ApiError(404, 'No request'))),
    [id],
  )
  useEffect(() => void (document.title = 'Connect an application · Agentbox'), [])

  const decide = async (approve: boolean) => {
    setBusy(true)
    try {
      const { redirect_to } = await api<{ redirect_to: string }>('POST', `/api/oauth/requests/${encodeURIComponent(id)}`, { approve })
      // The client's own redirect URI: a page on a loopback port, or an app's scheme (vscode://…) the browser hands over.
      location.href = redirect_to
    } catch (e) {
      setFailure(e)
      setBusy(false)
    }
  }

  if (!request.data) {
    return h(
      'main',
      { class: 'narrow' },
      h('h1', null, 'Connect an application'),
      request.error ? h(Banner, { kind: 'error' }, loadError(request.error)) : h(Loading, null),
    )
  }
  const r = request.data
  const client = r.client_name ?? 'An unnamed application'
  return h(
    'main',
    { class: 'narrow' },
    h('h1', null, `Connect ${client} to Agentbox?`),
    failure !== undefined ? h(Banner, { kind: 'error' }, loadError(failure)) : null,
    h('p', null, h('strong', null, client), ` wants to ${ACCESS[r.resource_kind]}, as you (${me.email}).`),
    h(
      'dl',
      { class: 'card' },
      h('dt', null, 'Access to'),
      h('dd', null, r.resource_description, h('br', null), h('code', null, r.resource)),
      h('dt', null, 'Application'),
      h('dd', null, client, r.client_uri ? [' · ', h('span', { class: 'muted' }, r.client_uri)] : null),
      h('dt', null, 'After you answer, you go to'),
      h('dd', null, h('code', null, r.redirect_host)),
    ),
    h('p', { class: 'muted' }, 'Only approve an application you started connecting yourself. You can disconnect it at any time under Connected clients.'),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'primary', disabled: busy, onClick: () => decide(true) }, 'Approve'),
      h('button', { type: 'button', class: 'danger', disabled: busy, onClick: () => decide(false) }, 'Deny'),
    ),
  )
}
