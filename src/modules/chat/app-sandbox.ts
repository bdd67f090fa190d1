// The page an MCP Apps view (a tool's UI template) is drawn in: the console frames it with `sandbox="allow-scripts"`
// (no allow-same-origin: an opaque origin, so the view reaches neither the console, its storage nor the API), the page
// asks the console for the template over postMessage and writes it into itself. It is served with a policy of its own,
// the MCP Apps restrictive default widened only by the domains the template declared (`_meta.ui.csp`), because a
// template inside the console's own page would inherit the console's policy (no inline scripts) instead.

/** Where the console frames views. */
export const APP_SANDBOX_PATH = '/console/mcp-app-sandbox'

/** An origin a template may declare: http(s), a host (`*.` allowed as the first label), an optional port. Nothing else. */
const ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i
const MAX_DOMAINS = 20

/** The declared domains of one kind, from a comma-separated query value: only well-formed origins, at most 20. */
export function declaredOrigins(value: string | null | undefined): string[] {
  if (!value) return []
  return [
    ...new Set(
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => ORIGIN.test(item)),
    ),
  ].slice(0, MAX_DOMAINS)
}

export interface SandboxDomains {
  readonly connect: readonly string[]
  readonly resource: readonly string[]
  readonly frame: readonly string[]
  readonly base: readonly string[]
}

/**
 * The view's policy: inline scripts and styles (a template is one HTML document), data: images, fonts and media, and
 * only the declared origins beyond that; no plugins, no forms, framed only by this instance's pages.
 */
export function sandboxPolicy(domains: SandboxDomains): string {
  const resource = domains.resource.join(' ')
  const list = (items: readonly string[], fallback: string) => (items.length > 0 ? items.join(' ') : fallback)
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resource}`.trim(),
    `style-src 'unsafe-inline' ${resource}`.trim(),
    `img-src data: ${resource}`.trim(),
    `font-src data: ${resource}`.trim(),
    `media-src data: ${resource}`.trim(),
    `connect-src ${list(domains.connect, "'none'")}`,
    `frame-src ${list(domains.frame, "'none'")}`,
    `base-uri ${list(domains.base, "'none'")}`,
    "object-src 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ')
}

/**
 * The page itself: it tells the console it is ready, takes the template once (only from the page that framed it), and
 * replaces itself with it. Writing the document also drops this listener, so the view alone answers from then on.
 */
export const SANDBOX_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>MCP app</title><script>
(function () {
  var done = false;
  window.addEventListener('message', function (event) {
    var data = event.data;
    if (done || event.source !== window.parent || !data || data.jsonrpc !== '2.0') return;
    if (data.method !== 'ui/notifications/sandbox-resource-ready' || !data.params || typeof data.params.html !== 'string') return;
    done = true;
    document.open();
    document.write(data.params.html);
    document.close();
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, '*');
})();
</script></head><body></body></html>`

export function sandboxResponse(query: Record<string, string | undefined>): Response {
  const policy = sandboxPolicy({
    connect: declaredOrigins(query.connect),
    resource: declaredOrigins(query.resource),
    frame: declaredOrigins(query.frame),
    base: declaredOrigins(query.base),
  })
  return new Response(SANDBOX_HTML, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': policy,
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    },
  })
}
