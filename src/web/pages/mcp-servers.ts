// MCP servers: the external MCP servers of the organisation (docs/api.md "External MCP servers"). Everyone sees them
// and whether they are connected, connects with OAuth (the browser goes to the server's sign-in and comes back here
// with a notice) or with a pasted bearer token, sees the tools they get, and disconnects; admins add and remove servers.
// The MCP gateway's URL is shown for clients that should use every connected server at once.
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, CopyButton, Field, h, Loading, Select, useLoad } from '../ui.ts'

type Auth = 'none' | 'bearer' | 'oauth'

interface McpServer {
  name: string
  url: string
  auth: Auth
  connected: boolean
  reason: string | null
  connected_at: string | null
  oauth_client_id: string | null
  oauth_client_source: 'admin' | 'registered' | null
}

interface ServerTools {
  server: string
  tools: { name: string; tool: string; title: string | null; description: string | null }[]
}

type Notice = { kind: 'success' | 'error'; text: string } | null

const AUTH_LABEL: Record<Auth, string> = { none: 'No sign-in', bearer: 'Bearer token', oauth: 'OAuth sign-in' }
const AUTH_OPTIONS: readonly (readonly [string, string])[] = [
  ['oauth', 'OAuth sign-in (each person signs in at the server)'],
  ['bearer', 'Bearer token (each person pastes their own)'],
  ['none', 'No sign-in'],
]

/** The notice the OAuth callback sent the browser back with, read once and removed from the address bar. */
function callbackNotice(): Notice {
  const query = new URLSearchParams(location.search)
  const connected = query.get('connected')
  const error = query.get('error')
  if (connected === null && error === null) return null
  history.replaceState(history.state, '', location.pathname)
  if (connected !== null) return { kind: 'success', text: `Connected to ${connected}: its tools are now yours in chat and at the MCP gateway.` }
  const server = query.get('server')
  return { kind: 'error', text: server ? `Connecting to ${server} failed: ${error}` : `Connecting failed: ${error}` }
}

function AddServerForm({ onAdded }: { onAdded: (name: string) => void }) {
  const empty = { name: '', url: '', auth: 'oauth', oauth_client_id: '', oauth_client_secret: '' }
  const [form, setForm] = useState(empty)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const set = (key: keyof typeof empty) => (value: string) => setForm({ ...form, [key]: value })
  const submit = async (event: Event) => {
    event.preventDefault()
    setErrors({})
    setError('')
    setBusy(true)
    try {
      const body: Record<string, string> = { name: form.name, url: form.url, auth: form.auth }
      if (form.auth === 'oauth' && form.oauth_client_id) body.oauth_client_id = form.oauth_client_id
      if (form.auth === 'oauth' && form.oauth_client_id && form.oauth_client_secret) body.oauth_client_secret = form.oauth_client_secret
      const created = await api<McpServer>('POST', '/api/mcp-servers', body)
      setForm(empty)
      onAdded(created.name)
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) setErrors(e.fields)
      else if (e instanceof ApiError && e.status === 409) setErrors({ name: e.message })
      else setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  return h(
    'form',
    { class: 'card', onSubmit: submit, 'aria-labelledby': 'mcp-server-add-title' },
    h('h2', { id: 'mcp-server-add-title' }, 'Add an MCP server'),
    error ? h(Banner, { kind: 'error' }, error) : null,
    h(Field, {
      id: 'mcp-server-name',
      label: 'Name',
      hint: 'Lowercase letters, digits and hyphens; its tools are named <name>__<tool>',
      value: form.name,
      onInput: set('name'),
      error: errors.name,
      required: true,
    }),
    h(Field, {
      id: 'mcp-server-url',
      label: 'URL',
      hint: "The server's MCP endpoint (Streamable HTTP), e.g. https://mcp.example.com/mcp",
      value: form.url,
      onInput: set('url'),
      error: errors.url,
      type: 'url',
      required: true,
    }),
    h(Select, { id: 'mcp-server-auth', label: 'Sign-in', value: form.auth, options: AUTH_OPTIONS, onChange: set('auth') }),
    form.auth === 'oauth'
      ? h(
          'div',
          null,
          h(Field, {
            id: 'mcp-server-client-id',
            label: 'Client id (optional)',
            hint: `Only if the server's authorization server does not let Agentbox register itself; its redirect URI is ${location.origin}/api/mcp-servers/oauth/callback`,
            value: form.oauth_client_id,
            onInput: set('oauth_client_id'),
            error: errors.oauth_client_id,
          }),
          form.oauth_client_id
            ? h(Field, {
                id: 'mcp-server-client-secret',
                label: 'Client secret (optional)',
                value: form.oauth_client_secret,
                onInput: set('oauth_client_secret'),
                error: errors.oauth_client_secret,
                type: 'password',
                autocomplete: 'off',
              })
            : null,
        )
      : null,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Add server')),
  )
}

function TokenForm({ server, onSaved, onCancel }: { server: McpServer; onSaved: () => void; onCancel: () => void }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const id = `mcp-token-${server.name}`
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      await api('PUT', `/api/mcp-servers/${encodeURIComponent(server.name)}/connection`, { token })
      setToken('')
      onSaved()
    } catch (e) {
      setError(e instanceof ApiError && e.fields.token ? e.fields.token : errorText(e))
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => document.getElementById(id)?.focus(), [id])
  return h(
    'form',
    { onSubmit: submit, 'aria-label': `Token for ${server.name}` },
    h(Field, { id, label: `Your token for ${server.name}`, value: token, onInput: setToken, type: 'password', autocomplete: 'off', error, required: true }),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Save token'),
      h('button', { type: 'button', onClick: onCancel }, 'Cancel'),
    ),
  )
}

/**
 * The tools the person gets from `server`. A listing that fails asks for the servers again (`onFailed`): a token the
 * server refused has just marked the connection broken, and its row should say so and why.
 */
function ToolList({ server, onFailed }: { server: McpServer; onFailed: () => void }) {
  const tools = useLoad(() => api<ServerTools>('GET', `/api/mcp-servers/${encodeURIComponent(server.name)}/tools`), [server.name, server.connected_at])
  useEffect(() => {
    if (tools.error) onFailed()
  }, [tools.error])
  if (!tools.data) return h(Loading, { error: tools.error && `The tools of ${server.name} could not be listed: ${tools.error}` })
  if (tools.data.tools.length === 0) return h('p', null, 'This server offers no tools.')
  return h(
    'ul',
    { 'aria-label': `Tools of ${server.name}` },
    tools.data.tools.map((tool) =>
      h('li', { key: tool.name }, h('code', null, tool.name), tool.description ? h('span', { class: 'muted' }, ` — ${tool.description.split('\n')[0]}`) : null),
    ),
  )
}

function status(server: McpServer): string {
  if (server.auth === 'none') return 'Ready (no sign-in)'
  if (server.connected) return 'Connected'
  return server.reason ? `Not connected: ${server.reason}` : 'Not connected'
}

export function McpServersPage({ me }: { me: Me }) {
  const list = useLoad(() => api<McpServer[]>('GET', '/api/mcp-servers'))
  const [notice, setNotice] = useState<Notice>(callbackNotice)
  const [pasting, setPasting] = useState<string | null>(null)
  const [showing, setShowing] = useState<string | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const gateway = `${location.origin}/mcp/gateway`

  const act = async (server: McpServer, work: () => Promise<void>) => {
    setBusy(server.name)
    try {
      await work()
    } catch (e) {
      setNotice({ kind: 'error', text: `${server.name}: ${errorText(e)}` })
    } finally {
      setBusy(null)
    }
  }
  const signIn = (server: McpServer) =>
    act(server, async () => {
      const { authorization_url } = await api<{ authorization_url: string }>('POST', `/api/mcp-servers/${encodeURIComponent(server.name)}/connect`)
      location.assign(authorization_url)
    })
  const disconnect = (server: McpServer) =>
    act(server, async () => {
      if (!confirm(`Disconnect from ${server.name}? Its tools leave your chat and the gateway until you connect again.`)) return
      await api('DELETE', `/api/mcp-servers/${encodeURIComponent(server.name)}/connection`)
      setNotice({ kind: 'success', text: `Disconnected from ${server.name}.` })
      list.reload()
    })
  const remove = (server: McpServer) =>
    act(server, async () => {
      if (!confirm(`Remove ${server.name} for everyone? Every person's connection to it is forgotten.`)) return
      await api('DELETE', `/api/mcp-servers/${encodeURIComponent(server.name)}`)
      setNotice({ kind: 'success', text: `${server.name} was removed.` })
      list.reload()
    })

  const actions = (server: McpServer) => {
    const label = (verb: string) => ({ 'aria-label': `${verb} ${server.name}`, disabled: busy === server.name })
    return h(
      'div',
      { class: 'actions' },
      server.auth === 'oauth'
        ? h(
            'button',
            { type: 'button', class: server.connected ? undefined : 'primary', onClick: () => signIn(server), ...label('Connect to') },
            server.connected ? 'Reconnect' : 'Connect',
          )
        : null,
      server.auth === 'bearer'
        ? h(
            'button',
            { type: 'button', class: server.connected ? undefined : 'primary', onClick: () => setPasting(server.name), ...label('Paste a token for') },
            server.connected ? 'Replace token' : 'Paste a token',
          )
        : null,
      server.auth !== 'none' && (server.connected || server.reason)
        ? h('button', { type: 'button', onClick: () => disconnect(server), ...label('Disconnect from') }, 'Disconnect')
        : null,
      server.connected
        ? h(
            'button',
            {
              type: 'button',
              'aria-expanded': showing === server.name ? 'true' : 'false',
              onClick: () => setShowing(showing === server.name ? null : server.name),
            },
            showing === server.name ? 'Hide tools' : 'Show tools',
          )
        : null,
      me.role === 'admin' ? h('button', { type: 'button', class: 'danger', onClick: () => remove(server), ...label('Remove') }, 'Remove') : null,
    )
  }

  return h(
    'section',
    null,
    h('h1', null, 'MCP servers'),
    h(
      'p',
      { class: 'muted' },
      'MCP servers your organisation uses. Connect the ones you need: their tools join your chat and the MCP gateway, always called with your own sign-in.',
    ),
    h('div', { 'aria-live': 'polite' }, notice ? h(Banner, { kind: notice.kind }, notice.text) : null),
    h(
      'div',
      { class: 'card' },
      h('h2', null, 'MCP gateway'),
      h('p', null, 'One URL for an MCP client to use every server you connected, with your tokens for them:'),
      h('p', null, h('code', { 'data-testid': 'gateway-url' }, gateway), ' ', h(CopyButton, { text: gateway, label: 'Copy the gateway URL' })),
    ),
    !list.data
      ? h(Loading, { error: list.error })
      : list.data.length === 0
        ? h('p', null, me.role === 'admin' ? 'No MCP server yet: add one below.' : 'No MCP server yet: an admin adds them.')
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
                  ['Server', 'URL', 'Sign-in', 'Status', 'Actions'].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                list.data.flatMap((server) => [
                  h(
                    'tr',
                    { key: server.name, 'data-server': server.name },
                    h('th', { scope: 'row' }, server.name),
                    h('td', null, h('code', null, server.url)),
                    h('td', null, AUTH_LABEL[server.auth]),
                    h('td', null, status(server)),
                    h('td', null, actions(server)),
                  ),
                  pasting === server.name
                    ? h(
                        'tr',
                        { key: `${server.name}-token` },
                        h(
                          'td',
                          { colSpan: 5 },
                          h(TokenForm, {
                            server,
                            onSaved: () => {
                              setPasting(null)
                              setNotice({ kind: 'success', text: `Connected to ${server.name} with your token.` })
                              list.reload()
                            },
                            onCancel: () => setPasting(null),
                          }),
                        ),
                      )
                    : null,
                  showing === server.name && server.connected
                    ? h('tr', { key: `${server.name}-tools` }, h('td', { colSpan: 5 }, h(ToolList, { server, onFailed: list.reload })))
                    : null,
                ]),
              ),
            ),
          ),
    me.role === 'admin'
      ? h(AddServerForm, {
          onAdded: (name) => {
            setNotice({ kind: 'success', text: `${name} was added. People can connect to it now.` })
            list.reload()
          },
        })
      : null,
  )
}
