// The host side of MCP Apps (SEP-1865, ext-apps specification 2026-01-26) for a tool result whose tool names a UI
// template (`_meta.ui.resourceUri`): the template is read from the chat's tool set, drawn in an iframe with
// `sandbox="allow-scripts"` (an opaque origin) on the sandbox page, which takes the HTML from us; then the view speaks
// JSON-RPC over postMessage: `ui/initialize` (answered with the host's context), `ui/notifications/initialized` (we then
// send the tool's input and result), size changes, links to open, `ping`. Other requests are answered "not supported".
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import { Banner, h } from '../ui.ts'
import type { ToolPart } from './chat-stream.ts'

export const APP_MIME = 'text/html;profile=mcp-app'
const PROTOCOL_VERSION = '2026-01-26'
const SANDBOX = '/console/mcp-app-sandbox'
const MAX_HEIGHT = 800

interface ResourceContent {
  uri: string
  mimeType: string
  text?: string
  blob?: string
  _meta?: { ui?: { csp?: Record<string, string[] | undefined>; prefersBorder?: boolean } }
}

export interface AppViewScope {
  agent: string | null
  mode: 'live' | 'design' | 'mock'
  version: 'live' | 'draft'
}

/** The template a tool's result is shown with, if its tool names one (the current key, or the older flat one). */
export function templateOf(part: ToolPart): string | null {
  const ui = part.meta?.ui as { resourceUri?: unknown } | undefined
  const uri = ui?.resourceUri ?? part.meta?.['ui/resourceUri']
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : null
}

/** The tool's answer as an MCP CallToolResult: its text, and the object itself for views that read structured content. */
function callToolResult(result: NonNullable<ToolPart['result']>) {
  let structured: unknown
  try {
    structured = JSON.parse(result.content)
  } catch {
    structured = undefined
  }
  const isObject = structured !== null && typeof structured === 'object' && !Array.isArray(structured)
  return { content: [{ type: 'text', text: result.content }], ...(isObject && { structuredContent: structured }), ...(result.is_error && { isError: true }) }
}

function sandboxUrl(content: ResourceContent): string {
  const csp = content._meta?.ui?.csp ?? {}
  const params = new URLSearchParams()
  const add = (name: string, values: string[] | undefined) => values?.length && params.set(name, values.join(','))
  add('connect', csp.connectDomains)
  add('resource', csp.resourceDomains)
  add('frame', csp.frameDomains)
  add('base', csp.baseUriDomains)
  const query = params.toString()
  return query ? `${SANDBOX}?${query}` : SANDBOX
}

export function McpAppView({ part, uri, scope }: { part: ToolPart; uri: string; scope: AppViewScope }) {
  const [content, setContent] = useState<ResourceContent | null>(null)
  const [error, setError] = useState('')
  const [height, setHeight] = useState(160)
  const frame = useRef<HTMLIFrameElement>(null)

  useEffect(() => {
    const query = new URLSearchParams({
      uri,
      mode: scope.mode,
      ...(scope.agent && { agent_name: scope.agent }),
      ...(scope.mode === 'mock' && { version: scope.version }),
    })
    api<{ contents: ResourceContent[] }>('GET', `/api/chat/resource?${query}`).then(
      ({ contents }) => {
        const first = contents[0]
        if (!first || first.text === undefined || !first.mimeType.startsWith('text/html')) setError('This tool’s view is not an HTML template.')
        else setContent(first)
      },
      (e) => setError(errorText(e)),
    )
  }, [uri, scope.agent, scope.mode, scope.version])

  useEffect(() => {
    if (!content) return
    const post = (message: object) => frame.current?.contentWindow?.postMessage({ jsonrpc: '2.0', ...message }, '*')
    const answer = (id: unknown, result: object) => post({ id, result })
    const refuse = (id: unknown, message: string) => post({ id, error: { code: -32601, message } })
    const listener = (event: MessageEvent) => {
      // Only this view's own window: the sandbox has an opaque origin, so its source is what identifies it.
      if (!frame.current || event.source !== frame.current.contentWindow) return
      const message = event.data as { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown> }
      if (message?.jsonrpc !== '2.0' || typeof message.method !== 'string') return
      const { id, method, params } = message
      if (method === 'ui/notifications/sandbox-proxy-ready') post({ method: 'ui/notifications/sandbox-resource-ready', params: { html: content.text } })
      else if (method === 'ui/initialize')
        answer(id, {
          protocolVersion: PROTOCOL_VERSION,
          hostInfo: { name: 'agentbox', version: '1' },
          hostCapabilities: { openLinks: {}, sandbox: { csp: content._meta?.ui?.csp ?? {} } },
          hostContext: {
            toolInfo: { id: part.id, tool: { name: part.name, inputSchema: { type: 'object' } } },
            theme: document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light',
            displayMode: 'inline',
            availableDisplayModes: ['inline'],
            containerDimensions: { maxHeight: MAX_HEIGHT },
            locale: document.documentElement.lang || 'en',
            platform: 'web',
          },
        })
      else if (method === 'ui/notifications/initialized') {
        post({ method: 'ui/notifications/tool-input', params: { arguments: part.arguments } })
        if (part.result) post({ method: 'ui/notifications/tool-result', params: callToolResult(part.result) })
      } else if (method === 'ui/notifications/size-changed') {
        const next = Number(params?.height)
        if (Number.isFinite(next) && next > 0) setHeight(Math.min(MAX_HEIGHT, Math.ceil(next)))
      } else if (method === 'ui/open-link') {
        const url = String(params?.url ?? '')
        if (/^https?:\/\//i.test(url)) {
          window.open(url, '_blank', 'noopener,noreferrer')
          answer(id, {})
        } else refuse(id, 'Only http and https links open')
      } else if (method === 'ui/request-display-mode') answer(id, { mode: 'inline' })
      else if (method === 'ping') answer(id, {})
      else if (id !== undefined) refuse(id, `${method} is not supported by this host`)
    }
    window.addEventListener('message', listener)
    return () => {
      window.removeEventListener('message', listener)
      post({ id: `teardown-${part.id}`, method: 'ui/resource-teardown', params: {} })
    }
  }, [content, part.id, part.result])

  if (error) return h(Banner, { kind: 'warning' }, `The tool’s view could not be shown: ${error}`)
  if (!content) return h('p', { class: 'muted' }, 'Loading the tool’s view…')
  return h('iframe', {
    ref: frame,
    class: content._meta?.ui?.prefersBorder === false ? 'mcp-app' : 'mcp-app mcp-app-border',
    title: `${part.name} view`,
    sandbox: 'allow-scripts',
    src: sandboxUrl(content),
    style: { height: `${height}px` },
    'data-testid': 'mcp-app',
  })
}
