// The page GET /oauth/authorize shows when it must not redirect (unknown client, unregistered redirect URI): a person
// is looking at a browser tab, so the answer is a sentence, not JSON.

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** No scripts, styles or images at all; never framed. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
}

export function authorizeErrorPage(message: string): Response {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Cannot connect · Agentbox</title></head>
<body>
<main>
<h1>This application cannot connect to Agentbox</h1>
<p>${escapeHtml(message)}</p>
<p>Nothing was shared. Close this tab and check the application's settings, or ask your administrator.</p>
</main>
</body>
</html>
`
  return new Response(html, { status: 400, headers: PAGE_HEADERS })
}
