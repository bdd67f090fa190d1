// The back channel: POST /oauth/token (authorization_code with PKCE, refresh_token with rotation) and POST /oauth/revoke.
// Every secret is looked up by its SHA-256; every "use once" is a conditional UPDATE, so two racing requests cannot both win.
import type { Kysely, Transaction } from 'kysely'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { newId } from '../../platform/ids.ts'
import type { OauthClients } from './clients.ts'
import { OauthError } from './errors.ts'
import { verifierMatches } from './pkce.ts'
import { parseMcpResource } from './resources.ts'
import { hashSecret, mintSecret, OAUTH_ACCESS_TOKEN_PREFIX, OAUTH_REFRESH_TOKEN_PREFIX, OAUTH_TTL } from './tokens.ts'

/** RFC 6749 §5.1. */
export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token: string
  scope: string
}

/** Form or JSON parameters as strings; RFC 6749 §3.1: a parameter sent twice (an array here) is an invalid request. */
export function oauthParams(body: unknown): Record<string, string> {
  const params: Record<string, string> = {}
  if (body === null || typeof body !== 'object') return params
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value)) throw new OauthError('invalid_request', `${key} is sent more than once`)
    if (typeof value === 'string') params[key] = value
    else if (value !== undefined && value !== null) throw new OauthError('invalid_request', `${key} must be a string`)
  }
  return params
}

/** A code or refresh token presented again: the grant it produced (if any) is revoked once the lookup's transaction ends. */
type Replayed = { readonly replayed: string | null }

const required = (params: Record<string, string>, name: string): string => {
  const value = params[name]
  if (!value) throw new OauthError('invalid_request', `${name} is required`)
  return value
}

export class TokenEndpoint {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly clients: OauthClients,
  ) {}

  async token(params: Record<string, string>, origin: string): Promise<TokenResponse> {
    const grantType = required(params, 'grant_type')
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
      throw new OauthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token')
    // Public clients (token_endpoint_auth_method none) identify themselves by client_id alone; PKCE and the
    // sender-bound refresh token are what protect the exchange.
    const clientId = required(params, 'client_id')
    if (!(await this.clients.known(clientId))) throw new OauthError('invalid_client', 'Unknown client_id', 401)
    const resource = params.resource === undefined ? undefined : (parseMcpResource(params.resource, origin)?.url ?? '')
    return grantType === 'authorization_code' ? this.#exchangeCode(params, clientId, resource) : this.#refresh(params, clientId, resource)
  }

  /** RFC 7009: the answer is 200 whether or not the token was known, so it tells a caller nothing. */
  async revoke(params: Record<string, string>): Promise<void> {
    const token = required(params, 'token')
    const row = await this.db
      .selectFrom('oauth_tokens as t')
      .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
      .select(['t.token_hash', 't.kind', 'g.id as grant_id', 'g.client_id'])
      .where('t.token_hash', '=', hashSecret(token))
      .executeTakeFirst()
    if (!row || (params.client_id !== undefined && params.client_id !== row.client_id)) return
    if (row.kind === 'access') {
      await this.db.deleteFrom('oauth_tokens').where('token_hash', '=', row.token_hash).execute()
      return
    }
    await this.db.transaction().execute((trx) => revokeGrant(trx, this.clock, row.grant_id, { actor_id: null, reason: 'client_revoked' }))
  }

  async #exchangeCode(params: Record<string, string>, clientId: string, resource: string | undefined): Promise<TokenResponse> {
    const code = required(params, 'code')
    const redirectUri = required(params, 'redirect_uri')
    const verifier = required(params, 'code_verifier')
    const now = this.clock.now()
    const outcome = await this.db.transaction().execute(async (trx): Promise<TokenResponse | Replayed> => {
      const request = await trx.selectFrom('oauth_requests').selectAll().where('code_hash', '=', hashSecret(code)).executeTakeFirst()
      if (!request || request.user_id === null) throw new OauthError('invalid_grant', 'The authorization code is not valid')
      // RFC 6749 §4.1.2: a code used twice may have been stolen; what it granted is withdrawn.
      if (request.code_used_at !== null) return { replayed: request.grant_id }
      if (request.code_expires_at === null || request.code_expires_at <= isoTime(now))
        throw new OauthError('invalid_grant', 'The authorization code has expired')
      if (request.client_id !== clientId) throw new OauthError('invalid_grant', 'The authorization code was issued to another client')
      if (request.redirect_uri !== redirectUri) throw new OauthError('invalid_grant', 'redirect_uri does not match the authorization request')
      if (!verifierMatches(verifier, request.code_challenge)) throw new OauthError('invalid_grant', 'code_verifier does not match the code_challenge')
      if (resource !== undefined && resource !== request.resource) throw new OauthError('invalid_target', 'resource does not match the authorization request')
      await this.#activeUser(trx, request.user_id)

      const grantId = newId()
      const used = await trx
        .updateTable('oauth_requests')
        .set({ code_used_at: isoTime(now), grant_id: grantId })
        .where('id', '=', request.id)
        .where('code_used_at', 'is', null)
        .executeTakeFirst()
      if (Number(used.numUpdatedRows) === 0) throw new OauthError('invalid_grant', 'The authorization code was already used')
      await trx
        .insertInto('oauth_grants')
        .values({
          id: grantId,
          user_id: request.user_id,
          client_id: clientId,
          resource: request.resource,
          scope: request.scope,
          created_at: isoTime(now),
          last_used_at: null,
          expires_at: isoTime(now + OAUTH_TTL.refresh * 1000),
          revoked_at: null,
        })
        .execute()
      await writeAudit(trx, this.clock, {
        actor_id: request.user_id,
        action: 'oauth.grant.create',
        target_type: 'oauth_grant',
        target_id: grantId,
        details: { client_id: clientId, resource: request.resource },
      })
      return issueTokens(trx, now, grantId, request.scope)
    })
    if ('replayed' in outcome) {
      if (outcome.replayed) await this.#revokeReplayed(outcome.replayed, 'code_replayed')
      throw new OauthError('invalid_grant', 'The authorization code was already used')
    }
    return outcome
  }

  async #refresh(params: Record<string, string>, clientId: string, resource: string | undefined): Promise<TokenResponse> {
    const refreshToken = required(params, 'refresh_token')
    const now = this.clock.now()
    const outcome = await this.db.transaction().execute(async (trx): Promise<TokenResponse | Replayed> => {
      const row = await trx
        .selectFrom('oauth_tokens as t')
        .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
        .select(['t.token_hash', 't.expires_at', 't.used_at', 'g.id as grant_id', 'g.client_id', 'g.user_id', 'g.resource', 'g.scope', 'g.revoked_at'])
        .where('t.token_hash', '=', hashSecret(refreshToken))
        .where('t.kind', '=', 'refresh')
        .executeTakeFirst()
      if (!row || row.revoked_at !== null) throw new OauthError('invalid_grant', 'The refresh token is not valid')
      if (row.client_id !== clientId) throw new OauthError('invalid_grant', 'The refresh token was issued to another client')
      // Rotation's reuse detection (OAuth 2.1 §4.3.1): an old refresh token came back, so one of its two holders is
      // not the client; the whole grant ends and the user connects again.
      if (row.used_at !== null) return { replayed: row.grant_id }
      if (row.expires_at <= isoTime(now)) throw new OauthError('invalid_grant', 'The refresh token has expired')
      if (resource !== undefined && resource !== row.resource) throw new OauthError('invalid_target', 'resource does not match the grant')
      await this.#activeUser(trx, row.user_id)
      const used = await trx
        .updateTable('oauth_tokens')
        .set({ used_at: isoTime(now) })
        .where('token_hash', '=', row.token_hash)
        .where('used_at', 'is', null)
        .executeTakeFirst()
      if (Number(used.numUpdatedRows) === 0) throw new OauthError('invalid_grant', 'The refresh token was already used')
      return issueTokens(trx, now, row.grant_id, row.scope)
    })
    if ('replayed' in outcome) {
      await this.#revokeReplayed(outcome.replayed!, 'refresh_token_reused')
      throw new OauthError('invalid_grant', 'The refresh token was already used; the grant is revoked')
    }
    return outcome
  }

  /** In its own transaction, after the one that found the replay: the error that follows must not roll it back. */
  async #revokeReplayed(grantId: string, reason: 'code_replayed' | 'refresh_token_reused'): Promise<void> {
    await this.db.transaction().execute((trx) => revokeGrant(trx, this.clock, grantId, { actor_id: null, reason }))
  }

  async #activeUser(trx: Transaction<Database>, userId: string): Promise<void> {
    const user = await trx.selectFrom('users').select(['active']).where('id', '=', userId).executeTakeFirst()
    if (user?.active !== 1) throw new OauthError('invalid_grant', 'The user who granted access is deactivated')
  }
}

/** A new access token and a new refresh token for the grant; the grant lives as long as its newest refresh token. */
async function issueTokens(trx: Transaction<Database>, now: number, grantId: string, scope: string): Promise<TokenResponse> {
  const access = mintSecret(OAUTH_ACCESS_TOKEN_PREFIX)
  const refresh = mintSecret(OAUTH_REFRESH_TOKEN_PREFIX)
  const refreshExpiry = isoTime(now + OAUTH_TTL.refresh * 1000)
  const created_at = isoTime(now)
  await trx
    .insertInto('oauth_tokens')
    .values([
      { token_hash: access.hash, grant_id: grantId, kind: 'access', created_at, expires_at: isoTime(now + OAUTH_TTL.access * 1000), used_at: null },
      { token_hash: refresh.hash, grant_id: grantId, kind: 'refresh', created_at, expires_at: refreshExpiry, used_at: null },
    ])
    .execute()
  await trx.updateTable('oauth_grants').set({ expires_at: refreshExpiry }).where('id', '=', grantId).execute()
  return { access_token: access.value, token_type: 'Bearer', expires_in: OAUTH_TTL.access, refresh_token: refresh.value, scope }
}

/** Ends a grant: marked revoked (the connected-clients list and the audit keep it) and its tokens deleted. */
export async function revokeGrant(
  trx: Transaction<Database>,
  clock: Clock,
  grantId: string,
  why: { actor_id: string | null; reason: 'user_revoked' | 'client_revoked' | 'code_replayed' | 'refresh_token_reused' },
): Promise<void> {
  const revoked = await trx
    .updateTable('oauth_grants')
    .set({ revoked_at: isoTime(clock.now()) })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  await trx.deleteFrom('oauth_tokens').where('grant_id', '=', grantId).execute()
  if (Number(revoked.numUpdatedRows) > 0)
    await writeAudit(trx, clock, {
      actor_id: why.actor_id,
      action: 'oauth.grant.revoke',
      target_type: 'oauth_grant',
      target_id: grantId,
      details: { reason: why.reason },
    })
}
