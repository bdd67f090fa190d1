// Whether a request comes from the console's own pages: browsers send `Origin` with every POST from script, naming the
// page's origin. The refresh endpoint requires it (with SameSite=Strict cookies, the CSRF defence), and sign-in sets
// the console's cookies only then (a script or another site gets none).

/** Origin is AGENTBOX_PUBLIC_URL, or names the very host the request was sent to (the host the cookies belong to). */
export function fromConsolePage(request: Request, publicUrl: string | null): boolean {
  const origin = request.headers.get('origin')
  if (!origin || origin === 'null') return false
  if (publicUrl !== null && origin === publicUrl) return true
  let page: URL
  try {
    page = new URL(origin)
  } catch {
    return false
  }
  if (page.protocol !== 'http:' && page.protocol !== 'https:') return false
  // The scheme is not compared: behind a proxy that terminates TLS the page is https and the request arrives as http.
  const sentTo = request.headers.get('host') ?? new URL(request.url).host
  try {
    return new URL(`${page.protocol}//${sentTo}`).host === page.host
  } catch {
    return false
  }
}

/** Cookies get `Secure` when the console is on https: the public URL says so, the request came over TLS, or the page is https. */
export function servedOverHttps(request: Request, publicUrl: string | null): boolean {
  return publicUrl?.startsWith('https:') === true || request.url.startsWith('https:') || request.headers.get('origin')?.startsWith('https:') === true
}
