// The front channel: GET /oauth/authorize checks a client's request and parks it for the user's decision; the
// console's consent page reads it and decides, which mints the one-time code (RFC 6749 §4.1, OAuth 2.1 §4.1).
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { conflict, forbidden, notFound } from '../../platform/errors.ts'
import { randomToken } from '../../platform/ids.ts'
import type { OauthClients } from './clients.ts'
import { OauthError, type OauthErrorCode } from './errors.ts'
import { isCodeChallenge } from './pkce.ts'
import { describeResource, type McpResourceKind, OAUTH_SCOPES, parseMcpResource } from './resources.ts'
import { mintSecret, OAUTH_CODE_PREFIX, OAUTH_TTL } from './tokens.ts'

export const CONSENT_PAGE_PATH = '/oauth/consent'
const MAX_STATE_LENGTH = 1024

export interface AuthorizeParams {
  readonly response_type?: string
  readonly client_id?: string
  readonly redirect_uri?: string
  readonly code_challenge?: string
  readonly code_challenge_method?: string
  readonly state?: string
  readonly scope?: string
  readonly resource?: string
}

/**
 * Where the browser goes next. `error_page`: the client or its redirect URI could not be trusted, so nothing may be sent
 * there (RFC 6749 §4.1.2.1): the user sees why instead. `redirect`: to the consent page, or back to the client with an error.
 */
export type AuthorizeOutcome = { readonly kind: 'error_page'; readonly message: string } | { readonly kind: 'redirect'; readonly location: string }

/** What the consent page shows. */
export interface AuthorizationRequestView {
  id: string
  client_id: string
  client_name: string | null
  client_uri: string | null
  redirect_uri: string
  /** The host (or the app's scheme) the code will be sent to: what the user should recognise. */
  redirect_host: string
  resource: string
  resource_kind: McpResourceKind
  resource_name: string
  resource_description: string
  scope: string
  expires_at: string
}

/** The client's redirect URI with the response parameters added, `iss` included (RFC 9207). */
export function clientRedirect(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri)
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value)
  return url.toString()
}

const redirectHost = (redirectUri: string): string => {
  const url = new URL(redirectUri)
  return url.host !== '' ? url.host : url.protocol
}

export class Authorization {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly clients: OauthClients,
  ) {}

  /** Steps: the client and its exact redirect URI (else an error page), then response type, PKCE and resource (else back to the client with the error), then park the request and send the user to consent. */
  async authorize(params: AuthorizeParams, origin: string): Promise<AuthorizeOutcome> {
    if (!params.client_id) return { kind: 'error_page', message: 'The request has no client_id.' }
    let client: Awaited<ReturnType<OauthClients['resolve']>>
    try {
      client = await this.clients.resolve(params.client_id)
    } catch (error) {
      if (error instanceof OauthError) return { kind: 'error_page', message: error.description }
      throw error
    }
    const redirectUri = params.redirect_uri
    if (!redirectUri || !client.redirect_uris.includes(redirectUri))
      return { kind: 'error_page', message: 'The redirect_uri is not one this client registered, so the sign-in cannot continue.' }

    const refuse = (error: OauthErrorCode, description: string): AuthorizeOutcome => ({
      kind: 'redirect',
      location: clientRedirect(redirectUri, { error, error_description: description, state: params.state ?? null, iss: origin }),
    })
    if (params.response_type !== 'code') return refuse('unsupported_response_type', 'Only response_type=code is supported')
    if (!params.code_challenge || !isCodeChallenge(params.code_challenge)) return refuse('invalid_request', 'code_challenge is required (PKCE with S256)')
    if (params.code_challenge_method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256')
    if (params.state !== undefined && params.state.length > MAX_STATE_LENGTH)
      return refuse('invalid_request', `state is at most ${MAX_STATE_LENGTH} characters`)
    if (!params.resource) return refuse('invalid_target', "resource is required: the MCP server's URL (RFC 8707)")
    const resource = parseMcpResource(params.resource, origin)
    if (!resource) return refuse('invalid_target', 'resource must be an MCP endpoint URL of this server')

    const now = this.clock.now()
    const id = randomToken(24)
    await this.db
      .insertInto('oauth_requests')
      .values({
        id,
        client_id: client.client_id,
        redirect_uri: redirectUri,
        code_challenge: params.code_challenge,
        state: params.state ?? null,
        // Every token grants the one scope there is; a scope the server does not know is ignored (RFC 6749 §3.3).
        scope: OAUTH_SCOPES.join(' '),
        resource: resource.url,
        created_at: isoTime(now),
        expires_at: isoTime(now + OAUTH_TTL.request * 1000),
        decided_at: null,
        approved: null,
        user_id: null,
        code_hash: null,
        code_expires_at: null,
        code_used_at: null,
        grant_id: null,
      })
      .execute()
    return { kind: 'redirect', location: `${CONSENT_PAGE_PATH}?request=${encodeURIComponent(id)}` }
  }

  async view(principal: Principal, id: string): Promise<AuthorizationRequestView> {
    const row = await this.#pending(principal, id)
    const resource = parseMcpResource(row.resource, new URL(row.resource).origin)!
    return {
      id: row.id,
      client_id: row.client_id,
      client_name: row.client_name ?? null,
      client_uri: row.client_uri ?? null,
      redirect_uri: row.redirect_uri,
      redirect_host: redirectHost(row.redirect_uri),
      resource: row.resource,
      resource_kind: resource.kind,
      resource_name: resource.name,
      resource_description: describeResource(resource),
      scope: row.scope,
      expires_at: row.expires_at,
    }
  }

  /** Approve: a one-time code bound to client, redirect URI, PKCE challenge, resource and user. Deny: access_denied. Either way once. */
  async decide(principal: Principal, id: string, approve: boolean): Promise<{ redirect_to: string }> {
    const row = await this.#pending(principal, id)
    const now = this.clock.now()
    const code = approve ? mintSecret(OAUTH_CODE_PREFIX) : null
    const decided = await this.db
      .updateTable('oauth_requests')
      .set({
        decided_at: isoTime(now),
        approved: approve ? 1 : 0,
        user_id: principal.userId,
        code_hash: code?.hash ?? null,
        code_expires_at: code ? isoTime(now + OAUTH_TTL.code * 1000) : null,
      })
      .where('id', '=', id)
      .where('decided_at', 'is', null)
      .executeTakeFirst()
    // Two tabs deciding at once: only the first update finds the request undecided.
    if (Number(decided.numUpdatedRows) === 0) throw conflict('This authorization request was already decided')
    const iss = new URL(row.resource).origin
    const params: Record<string, string | null> = code
      ? { code: code.value, state: row.state, iss }
      : { error: 'access_denied', error_description: 'The user denied access', state: row.state, iss }
    return { redirect_to: clientRedirect(row.redirect_uri, params) }
  }

  async #pending(principal: Principal, id: string) {
    // The organisation account is not a person who can consent; its token acts for admins' scripts.
    if (principal.kind !== 'person') throw forbidden('Only a person can connect a client; sign in to the console')
    const row = await this.db
      .selectFrom('oauth_requests as r')
      .leftJoin('oauth_clients as c', 'c.client_id', 'r.client_id')
      .select(['r.id', 'r.client_id', 'r.redirect_uri', 'r.state', 'r.scope', 'r.resource', 'r.expires_at', 'r.decided_at', 'c.client_name', 'c.client_uri'])
      .where('r.id', '=', id)
      .executeTakeFirst()
    if (!row || row.expires_at <= isoTime(this.clock.now())) throw notFound('Authorization request not found or expired')
    if (row.decided_at !== null) throw conflict('This authorization request was already decided')
    return row
  }
}
