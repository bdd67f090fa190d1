// "Connect an MCP client": an endpoint's URL with a copy button and ready-made configurations for common clients. A
// client given only the URL signs in by itself (OAuth); clients configured with headers use a personal API token.
import { useState } from 'preact/hooks'
import { CopyButton, h, Link } from '../ui.ts'

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

export function McpConnect({ name, url, heading = 'Connect an MCP client' }: { name: string; url: string; heading?: string }) {
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
