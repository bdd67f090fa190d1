// Client metadata as a registration (RFC 7591) or a client ID metadata document states it: checked field by field into
// what the server keeps. Redirect URIs are matched exactly later, so here they only have to be safe to send a code to.
import { OauthError } from './errors.ts'

export const MAX_REDIRECT_URIS = 10
const MAX_URI_LENGTH = 1024
const MAX_NAME_LENGTH = 200
const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const

/** Loopback hosts may use plain http (RFC 8252 §7.3: native apps listen on a local port). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])
/** Schemes a browser runs, reads locally or hands to something other than an app: never a redirect target. */
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:', 'filesystem:', 'mailto:', 'tel:', 'ftp:', 'ws:', 'wss:'])
const CUSTOM_SCHEME = /^[a-z][a-z0-9+.-]*:$/

export interface ClientMetadata {
  readonly redirect_uris: readonly string[]
  readonly client_name: string | null
  readonly client_uri: string | null
  readonly logo_uri: string | null
  readonly grant_types: readonly string[]
}

export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname.toLowerCase())

/** Null when `raw` may be a redirect URI, else why not. https anywhere, http on loopback, an app's own scheme; no fragment. */
export function redirectUriProblem(raw: string): string | null {
  if (raw.length > MAX_URI_LENGTH) return `A redirect URI is at most ${MAX_URI_LENGTH} characters`
  if (raw.includes('#')) return 'A redirect URI cannot have a fragment'
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'A redirect URI must be an absolute URI'
  }
  const scheme = url.protocol.toLowerCase()
  if (scheme === 'https:' || scheme === 'http:') {
    if (url.username !== '' || url.password !== '') return 'A redirect URI cannot carry a user name or password'
    if (scheme === 'http:' && !isLoopbackHost(url.hostname)) return 'A redirect URI uses https, or http only on a loopback host (127.0.0.1, [::1], localhost)'
    return null
  }
  if (REFUSED_SCHEMES.has(scheme) || !CUSTOM_SCHEME.test(scheme)) return `The ${scheme} scheme is not allowed for a redirect URI`
  return null
}

const optionalString = (body: Record<string, unknown>, field: string, max: number): string | null => {
  const value = body[field]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || value.length > max) throw new OauthError('invalid_client_metadata', `${field} must be a string of at most ${max} characters`)
  return value.trim() === '' ? null : value.trim()
}

function optionalWebUrl(body: Record<string, unknown>, field: string): string | null {
  const value = optionalString(body, field, MAX_URI_LENGTH)
  if (value === null) return null
  try {
    const url = new URL(value)
    if (url.protocol === 'https:' || url.protocol === 'http:') return value
  } catch {
    // worded below
  }
  throw new OauthError('invalid_client_metadata', `${field} must be an http or https URL`)
}

function stringList(body: Record<string, unknown>, field: string): string[] | undefined {
  const value = body[field]
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value) || value.length > 20 || !value.every((item) => typeof item === 'string' && item.length <= 100))
    throw new OauthError('invalid_client_metadata', `${field} must be an array of strings`)
  return value as string[]
}

/**
 * The metadata the server keeps. Unknown fields are ignored. `token_endpoint_auth_method` is always `none` (public
 * clients with PKCE): a client asking for a secret gets the effective value back, as RFC 7591 §3.2.1 allows.
 */
export function parseClientMetadata(body: Record<string, unknown>): ClientMetadata {
  const uris = body.redirect_uris
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS)
    throw new OauthError('invalid_redirect_uri', `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs`)
  for (const uri of uris) {
    if (typeof uri !== 'string') throw new OauthError('invalid_redirect_uri', 'Every redirect URI must be a string')
    const problem = redirectUriProblem(uri)
    if (problem) throw new OauthError('invalid_redirect_uri', `${problem}: ${uri.slice(0, 100)}`)
  }
  const grantTypes = stringList(body, 'grant_types') ?? ['authorization_code', 'refresh_token']
  if (!grantTypes.includes('authorization_code'))
    throw new OauthError('invalid_client_metadata', 'grant_types must include authorization_code (the only flow this server offers)')
  const responseTypes = stringList(body, 'response_types')
  if (responseTypes && !responseTypes.includes('code')) throw new OauthError('invalid_client_metadata', 'response_types must include code')
  return {
    redirect_uris: [...new Set(uris as string[])],
    client_name: optionalString(body, 'client_name', MAX_NAME_LENGTH),
    client_uri: optionalWebUrl(body, 'client_uri'),
    logo_uri: optionalWebUrl(body, 'logo_uri'),
    grant_types: SUPPORTED_GRANT_TYPES.filter((type) => grantTypes.includes(type)),
  }
}
