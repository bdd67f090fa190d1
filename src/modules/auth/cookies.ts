// The console's two cookies, both HttpOnly (no script reads them), SameSite=Strict (no other site's page sends them)
// and scoped to /api/auth (no other endpoint receives them; none of them treats a cookie as a credential):
//  - the refresh cookie: the console session's current refresh token, for POST /api/auth/refresh; a browser-session
//    cookie, so closing the browser ends it as closing the tab ended the console's session before;
//  - the device cookie: proof that this browser signed in to an account before, so that a flood of failures from its
//    address does not lock it out (rate-limit.ts). It grants nothing else and outlives sign-out.
// Both are `Secure` when the console is served over https.

export const REFRESH_COOKIE = 'agentbox_refresh'
export const DEVICE_COOKIE = 'agentbox_device'
export const COOKIE_PATH = '/api/auth'
export const DEVICE_COOKIE_MAX_AGE_S = 365 * 24 * 3600

/** The value of cookie `name` in a Cookie header, or null. Values we set are base64url and dots: no decoding needed. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim()
      return value === '' || value.length > 512 ? null : value
    }
  }
  return null
}

function cookie(name: string, value: string, secure: boolean, maxAgeS: number | null): string {
  const parts = [`${name}=${value}`, `Path=${COOKIE_PATH}`, 'HttpOnly', 'SameSite=Strict']
  if (secure) parts.push('Secure')
  if (maxAgeS !== null) parts.push(`Max-Age=${maxAgeS}`)
  return parts.join('; ')
}

export const refreshCookie = (token: string, secure: boolean): string => cookie(REFRESH_COOKIE, token, secure, null)
export const clearRefreshCookie = (secure: boolean): string => cookie(REFRESH_COOKIE, '', secure, 0)
export const deviceCookie = (value: string, secure: boolean): string => cookie(DEVICE_COOKIE, value, secure, DEVICE_COOKIE_MAX_AGE_S)
