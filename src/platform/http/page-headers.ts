// Headers for the HTML pages the binary serves (the console, the API reference): what a browser may load, frame or leak.

/**
 * Only our own scripts, styles, images and API: no inline script (the pages load theirs from files), never framed
 * (clickjacking of approvals and settings), no referrer with tokens in it leaving the instance.
 */
const BASE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
]

const headersFor = (policy: string[]) =>
  Object.freeze({
    'content-security-policy': policy.join('; '),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  })

/** The console: its own stylesheet only (Preact sets styles through the CSSOM, which style-src does not restrict). */
export const CONSOLE_PAGE_HEADERS = headersFor([...BASE_POLICY, "style-src 'self'"])

/** Swagger UI writes style attributes into its markup, so the reference page allows inline styles (never inline scripts). */
export const DOCS_PAGE_HEADERS = headersFor([...BASE_POLICY, "style-src 'self' 'unsafe-inline'"])

/**
 * The console's template preview frame (a sandbox proxy, as MCP Apps hosts use): always a sandbox without the
 * console's origin (`sandbox allow-scripts`), framed only by the console. Its own policy lets a template's inline
 * script and styles run; the template's declared CSP is applied inside it, as a meta policy on the view it draws.
 */
export const TEMPLATE_PREVIEW_HEADERS = Object.freeze({
  'content-security-policy': [
    'sandbox allow-scripts',
    "default-src 'none'",
    "script-src 'unsafe-inline' http: https:",
    "style-src 'unsafe-inline' http: https:",
    'img-src http: https: data: blob:',
    'font-src http: https: data:',
    'media-src http: https: data: blob:',
    'connect-src http: https: ws: wss:',
    'frame-src http: https:',
    "frame-ancestors 'self'",
  ].join('; '),
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
})
