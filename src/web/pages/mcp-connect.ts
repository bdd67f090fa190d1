// "Connect an MCP client": an endpoint's URL with a copy button and ready-made configurations for common clients, and
// what the endpoint offers the signed-in user (its tools, and whether its operations come one tool each or through
// find_operations and call_operation). A client given only the URL signs in by itself (OAuth); clients configured with
// headers use a personal API token.
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { CopyButton, h, Link, Loading, useLoad } from '../ui.ts'

/** GET /api/agents/{name}/tools and GET /api/applications/{api_name}/tools. */
interface ToolsOffer {
  operation_mode: 'per_operation' | 'dynamic'
  operation_count: number
  operation_tool_limit: number
  tools: { name: string; title?: string }[]
  resources: number
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`

/** The tools tools/list shows the caller, and how the operations are offered. */
function OfferSummary({ path }: { path: string }) {
  const offer = useLoad(() => api<ToolsOffer>('GET', path), [path])
  if (!offer.data) return h(Loading, { error: offer.error })
  const { operation_mode: mode, operation_count: count, operation_tool_limit: limit, tools } = offer.data
  const operations =
    count === 0
      ? 'No API operations.'
      : mode === 'dynamic'
        ? `${plural(count, 'API operation')}, more than the organisation's limit of ${limit}: offered through find_operations (search) and call_operation instead of one tool each.`
        : `${plural(count, 'API operation')}, one tool each (the organisation's limit is ${limit}).`
  const shown = tools.slice(0, 12).map((tool) => tool.name)
  return h(
    'dl',
    { class: 'live-text', 'data-testid': 'mcp-offer' },
    h('dt', null, 'Operations'),
    h('dd', { 'data-testid': 'mcp-operation-mode', 'data-mode': mode }, operations),
    h('dt', null, `Tools you see (${tools.length})`),
    h(
      'dd',
      { dir: 'ltr' },
      shown.length === 0 ? 'None' : `${shown.join(', ')}${tools.length > shown.length ? `, and ${tools.length - shown.length} more` : ''}`,
    ),
  )
}

interface Snippet {
  readonly id: string
  readonly client: string
  readonly where: string
  readonly text: (name: string, url: string) => string
}

const json = (value: unknown) => JSON.stringify(value, null, 2)

/** Every snippet names only the URL: each of these clients runs the OAuth sign-in itself on first use. */
const SNIPPETS: readonly Snippet[] = [
  { id: 'claude-code', client: 'Claude Code', where: 'Run in a terminal', text: (name, url) => `claude mcp add --transport http ${name} ${url}` },
  {
    id: 'vscode',
    client: 'VS Code',
    where: 'Add to .vscode/mcp.json',
    text: (name, url) => json({ servers: { [name]: { type: 'http', url } } }),
  },
  { id: 'cursor', client: 'Cursor', where: 'Add to ~/.cursor/mcp.json', text: (name, url) => json({ mcpServers: { [name]: { url } } }) },
  {
    id: 'connector',
    client: 'Claude, ChatGPT',
    where: 'Settings → Connectors → Add a custom connector, then paste the URL',
    text: (_name, url) => url,
  },
  {
    id: 'headers',
    client: 'Clients without sign-in',
    where: 'Create a personal API token in Settings and send it as a header',
    text: (name, url) => json({ mcpServers: { [name]: { type: 'http', url, headers: { Authorization: 'Bearer <your personal API token>' } } } }),
  },
]

export function McpConnect({ name, url, heading = 'Connect an MCP client', offer }: { name: string; url: string; heading?: string; offer?: string }) {
  const [shown, setShown] = useState(SNIPPETS[0]!.id)
  const snippet = SNIPPETS.find((s) => s.id === shown)!
  const text = snippet.text(name, url)
  const ids = { title: `mcp-${name}-title`, url: `mcp-${name}-url` }
  return h(
    'section',
    { class: 'card', 'aria-labelledby': ids.title },
    h('h3', { id: ids.title }, heading),
    h(
      'p',
      null,
      h('label', { for: ids.url }, 'MCP URL '),
      h('input', { id: ids.url, readOnly: true, dir: 'ltr', value: url, size: Math.min(url.length, 80) }),
      ' ',
      h(CopyButton, { text: url, label: 'Copy URL' }),
    ),
    offer ? h(OfferSummary, { path: offer }) : null,
    h(
      'div',
      { role: 'group', 'aria-label': 'Client', class: 'client-choice' },
      SNIPPETS.map((s) => h('button', { type: 'button', key: s.id, 'aria-pressed': s.id === shown, onClick: () => setShown(s.id) }, s.client)),
    ),
    h('p', { class: 'muted' }, snippet.where, snippet.id === 'headers' ? [' (', h(Link, { to: '/settings' }, 'Settings'), ')'] : null),
    h('pre', { class: 'data', 'aria-label': `${snippet.client} configuration` }, text),
    h(CopyButton, { text, label: 'Copy configuration' }),
  )
}
