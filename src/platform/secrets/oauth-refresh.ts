// OAuth 2 refresh, in one place for every kind of credential (RFC 6749 §6): the refresh token is sent to the token
// endpoint through the guarded outbound client, and the answer becomes the next credential. Storing it, and making
// concurrent callers share one refresh, is the vault's part (vault.ts).
import type { Clock } from '../clock.ts'
import { isoTime } from '../clock.ts'
import { DomainError } from '../errors.ts'
import { OutboundError } from '../outbound/errors.ts'
import type { SafeFetch } from '../outbound/safe-fetch.ts'
import type { OAuth2Credential } from './credential.ts'

/** An access token this close to its expiry is refreshed before it is used. */
export const REFRESH_MARGIN_MS = 60_000
const TIMEOUT_MS = 30_000
/** A token response is a few hundred bytes; anything much larger is not one. */
const MAX_RESPONSE_BYTES = 64 * 1024

/**
 * - `rejected`: the token endpoint refused the refresh (RFC 6749 §5.2: `invalid_grant`, `invalid_client`…): the
 *   refresh token is revoked or expired, or the client is wrong; the user connects again. An HTTP 400.
 * - `unavailable`: the endpoint could not be reached, was not allowed, timed out, failed (5xx, 429) or answered
 *   something that is not a token response. Trying later may work. An HTTP 502.
 */
export type CredentialRefreshErrorCode = 'rejected' | 'unavailable'

/** A refresh that failed: a domain error every transport words (400 or 502 over HTTP, an error result over MCP). */
export class CredentialRefreshError extends DomainError {
  readonly code: CredentialRefreshErrorCode
  /** The endpoint's `error` code (`invalid_grant`…) when it sent one; never its description, which it chose. */
  readonly oauthError: string | null

  constructor(code: CredentialRefreshErrorCode, message: string, oauthError: string | null = null) {
    super(code === 'rejected' ? 'bad_request' : 'bad_gateway', message)
    this.name = 'CredentialRefreshError'
    this.code = code
    this.oauthError = oauthError
  }
}

/** True when `credential` should be refreshed before use: it expires within the margin and can be refreshed. */
export function needsRefresh(credential: OAuth2Credential, nowMs: number): boolean {
  if (!credential.refresh_token || !credential.token_endpoint || credential.expires_at === undefined) return false
  return Date.parse(credential.expires_at) - nowMs <= REFRESH_MARGIN_MS
}

/** An OAuth error code as the endpoint sent it, if it looks like one (RFC 6749 §5.2 allows %x20-21 / %x23-5B / %x5D-7E). */
function errorCodeOf(body: Uint8Array): string | null {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { error?: unknown }
    return typeof parsed.error === 'string' && /^[\w.-]{1,64}$/.test(parsed.error) ? parsed.error : null
  } catch {
    return null
  }
}

/** The refreshed credential from a token response, or null when the answer is not one. */
function refreshedFrom(body: Uint8Array, before: OAuth2Credential, nowMs: number): OAuth2Credential | null {
  let parsed: Record<string, unknown>
  try {
    parsed = JSON.parse(new TextDecoder().decode(body))
  } catch {
    return null
  }
  if (typeof parsed !== 'object' || parsed === null) return null
  const { access_token, token_type, expires_in, refresh_token, scope } = parsed
  if (typeof access_token !== 'string' || access_token === '') return null
  if (token_type !== undefined && (typeof token_type !== 'string' || token_type.toLowerCase() !== 'bearer')) return null
  const lifetime = typeof expires_in === 'number' ? expires_in : typeof expires_in === 'string' ? Number(expires_in) : Number.NaN
  const { expires_at: _, ...kept } = before
  return {
    ...kept,
    access_token,
    // A server that rotates refresh tokens sends the next one; one that does not keeps the old one valid.
    ...(typeof refresh_token === 'string' && refresh_token !== '' && { refresh_token }),
    ...(Number.isFinite(lifetime) && lifetime > 0 && { expires_at: isoTime(nowMs + lifetime * 1000) }),
    ...(typeof scope === 'string' && { scope }),
  }
}

/**
 * Sends one refresh (RFC 6749 §6) and answers the next credential. The client authenticates as the credential says
 * (`client_secret_basic`: HTTP Basic of the form-encoded id and secret, §2.3.1; `client_secret_post`: both in the
 * body; `none`: the id in the body). Nothing of the request or the answer is quoted in an error.
 */
export async function refreshOAuth2(fetch: SafeFetch, clock: Clock, credential: OAuth2Credential): Promise<OAuth2Credential> {
  if (!credential.refresh_token || !credential.token_endpoint || !credential.client_id)
    throw new CredentialRefreshError('rejected', 'The OAuth 2 token cannot be refreshed (no refresh token, token endpoint or client id): connect again')
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: credential.refresh_token })
  if (credential.resource) form.set('resource', credential.resource)
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }
  const method = credential.token_endpoint_auth_method ?? (credential.client_secret ? 'client_secret_post' : 'none')
  if (method === 'client_secret_basic') {
    const id = encodeURIComponent(credential.client_id)
    const secret = encodeURIComponent(credential.client_secret ?? '')
    headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
  } else {
    form.set('client_id', credential.client_id)
    if (method === 'client_secret_post' && credential.client_secret) form.set('client_secret', credential.client_secret)
  }
  let response: Awaited<ReturnType<SafeFetch>>
  try {
    response = await fetch(credential.token_endpoint, {
      method: 'POST',
      headers,
      body: form.toString(),
      secretHeaders: ['authorization'],
      maxRedirects: 0,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      timeoutMs: TIMEOUT_MS,
    })
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error
    const why: Partial<Record<OutboundError['code'], string>> = {
      destination_not_allowed: 'is not an allowed destination',
      timeout: 'did not answer in time',
      too_many_redirects: 'answered with a redirect',
      invalid_url: 'URL is not valid',
    }
    throw new CredentialRefreshError('unavailable', `The OAuth 2 token could not be refreshed: the token endpoint ${why[error.code] ?? 'cannot be reached'}`)
  }
  if (response.status === 400 || response.status === 401 || response.status === 403) {
    const code = errorCodeOf(response.body)
    throw new CredentialRefreshError('rejected', `The OAuth 2 token endpoint refused to refresh the token${code ? ` (${code})` : ''}: connect again`, code)
  }
  if (response.status !== 200)
    throw new CredentialRefreshError('unavailable', `The OAuth 2 token could not be refreshed: the token endpoint answered HTTP ${response.status}`)
  const next = response.truncated ? null : refreshedFrom(response.body, credential, clock.now())
  if (!next) throw new CredentialRefreshError('unavailable', 'The OAuth 2 token could not be refreshed: the token endpoint did not answer with a bearer token')
  return next
}
