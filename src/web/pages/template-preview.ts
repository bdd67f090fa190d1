// A template drawn as an MCP Apps host draws it: in a sandbox without the console's origin (the preview frame served at
// /console/template-preview.html, itself sandboxed), under the CSP the template declares, built the way the MCP Apps
// extension says a host builds it (undeclared domains never allowed; nothing declared, the restrictive default).
import { useEffect, useRef } from 'preact/hooks'
import { h } from '../ui.ts'

export interface CspDomains {
  resourceDomains?: string[]
  connectDomains?: string[]
  frameDomains?: string[]
  baseUriDomains?: string[]
}
export interface UiMeta {
  csp?: CspDomains
  permissions?: Record<string, Record<string, never>>
  domain?: string
  prefersBorder?: boolean
}

const listOf = (key: keyof CspDomains, csp: CspDomains | null, meta: UiMeta | null) => [...new Set([...(csp?.[key] ?? []), ...(meta?.csp?.[key] ?? [])])]

/** The Content-Security-Policy a host applies to the template. */
export function templatePolicy(csp: CspDomains | null, meta: UiMeta | null): string {
  const resources = listOf('resourceDomains', csp, meta).join(' ')
  const connect = listOf('connectDomains', csp, meta)
  const frames = listOf('frameDomains', csp, meta)
  const bases = listOf('baseUriDomains', csp, meta)
  const withResources = (base: string) => (resources ? `${base} ${resources}` : base)
  return [
    "default-src 'none'",
    `script-src ${withResources("'self' 'unsafe-inline'")}`,
    `style-src ${withResources("'self' 'unsafe-inline'")}`,
    `img-src ${withResources("'self' data:")}`,
    `font-src ${withResources("'self'")}`,
    `media-src ${withResources("'self' data:")}`,
    `connect-src ${connect.length > 0 ? connect.join(' ') : "'none'"}`,
    `frame-src ${frames.length > 0 ? frames.join(' ') : "'none'"}`,
    `base-uri ${bases.length > 0 ? bases.join(' ') : "'self'"}`,
    "object-src 'none'",
  ].join('; ')
}

/** The preview frame: sandboxed (scripts only, never the console's origin), given the HTML and the policy to draw it under. */
export function TemplatePreview({ html, policy, border }: { html: string; policy: string; border?: boolean | undefined }) {
  const frame = useRef<HTMLIFrameElement>(null)
  const ready = useRef(false)
  const send = () => frame.current?.contentWindow?.postMessage({ html, csp: policy }, '*')
  useEffect(() => {
    const listen = (event: MessageEvent) => {
      if (event.source !== frame.current?.contentWindow || (event.data as { type?: string } | null)?.type !== 'template-preview-ready') return
      ready.current = true
      send()
    }
    addEventListener('message', listen)
    return () => removeEventListener('message', listen)
  }, [])
  useEffect(() => {
    if (ready.current) send()
  }, [html, policy])
  return h('iframe', {
    ref: frame,
    class: border === false ? 'template-preview borderless' : 'template-preview',
    title: 'Template preview',
    sandbox: 'allow-scripts',
    src: '/console/template-preview.html',
    'data-policy': policy,
  })
}
