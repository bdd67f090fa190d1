// The OAuth endpoints read their own bodies (BodyLimits.ownBody): the token and revocation endpoints take
// `application/x-www-form-urlencoded` (RFC 6749 §4.1.3, RFC 7009 §2.1) as well as JSON, and a body that does not parse
// is an OAuth error (`invalid_request`, `invalid_client_metadata`), not the API's 422.
import { readBodyLimited } from '../../platform/http/body.ts'
import { OauthError, type OauthErrorCode } from './errors.ts'

/** The endpoints whose bodies the platform's parser leaves unread. */
export const OAUTH_OWN_BODY = /^\/oauth\/(?:token|revoke|register)\/?$/

/** Far above any real request (a registration with ten long redirect URIs is ~12 KiB). */
const MAX_OAUTH_BODY_BYTES = 64 * 1024

/**
 * The parameters as an object: form fields as strings (a field sent twice becomes an array, which the token endpoint
 * refuses, RFC 6749 §3.1), or a JSON object as sent. An empty body is `{}`. Too large → 413 (the platform's answer).
 */
export async function readOauthBody(request: Request, invalid: OauthErrorCode, formAllowed: boolean): Promise<Record<string, unknown>> {
  const bytes = await readBodyLimited(request, MAX_OAUTH_BODY_BYTES)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new OauthError(invalid, 'The body is not valid UTF-8')
  }
  if (text.trim() === '') return {}
  const contentType = (request.headers.get('content-type') ?? '').toLowerCase()
  if (formAllowed && contentType.startsWith('application/x-www-form-urlencoded')) {
    const params: Record<string, string | string[]> = {}
    for (const [key, value] of new URLSearchParams(text)) {
      const seen = params[key]
      params[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]
    }
    return params
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new OauthError(invalid, formAllowed ? 'The body must be form-encoded or a JSON object' : 'The body must be a JSON object')
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new OauthError(invalid, 'The body must be a JSON object')
  return parsed as Record<string, unknown>
}
