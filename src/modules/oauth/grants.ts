// Grants: a user's connected clients (listed and revoked from the console) and the check of an access token at an MCP
// endpoint, bound to the one resource it was issued for.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { notFound } from '../../platform/errors.ts'
import { OauthTokenError } from './errors.ts'
import { revokeGrant } from './token-endpoint.ts'
import { hashSecret, OAUTH_ACCESS_TOKEN_PREFIX } from './tokens.ts'

/** last_used_at is written at most this often per grant: a busy client does not turn every MCP call into a write. */
const TOUCH_INTERVAL_MS = 60_000

export interface GrantRecord {
  id: string
  client_id: string
  client_name: string | null
  resource: string
  scope: string
  created_at: string
  last_used_at: string | null
  expires_at: string
}

export class Grants {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The caller's live grants (not revoked, refresh token not expired), newest first. */
  async list(principal: Principal): Promise<GrantRecord[]> {
    return (
      this.db
        .selectFrom('oauth_grants as g')
        .leftJoin('oauth_clients as c', 'c.client_id', 'g.client_id')
        .select(['g.id', 'g.client_id', 'c.client_name', 'g.resource', 'g.scope', 'g.created_at', 'g.last_used_at', 'g.expires_at'])
        .where('g.user_id', '=', principal.userId)
        .where('g.revoked_at', 'is', null)
        .where('g.expires_at', '>', isoTime(this.clock.now()))
        .orderBy('g.created_at', 'desc')
        // Grants made in the same millisecond come in one order on either database: by id, which also grows with time.
        .orderBy('g.id', 'desc')
        .execute()
    )
  }

  /** Only the grant's own user: another user's grant is as unknown as a missing one. Revoking twice is harmless. */
  async revoke(principal: Principal, grantId: string): Promise<void> {
    const grant = await this.db.selectFrom('oauth_grants').select(['id']).where('id', '=', grantId).where('user_id', '=', principal.userId).executeTakeFirst()
    if (!grant) throw notFound('Grant not found')
    await this.db.transaction().execute((trx) => revokeGrant(trx, this.clock, grantId, { actor_id: principal.userId, reason: 'user_revoked' }))
  }

  async verifyAccessToken(token: string, resource: string): Promise<Principal> {
    if (!token.startsWith(OAUTH_ACCESS_TOKEN_PREFIX)) throw new OauthTokenError('Not an OAuth access token of this server')
    const row = await this.db
      .selectFrom('oauth_tokens as t')
      .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
      .innerJoin('users as u', 'u.id', 'g.user_id')
      .select(['t.expires_at', 'g.id as grant_id', 'g.resource', 'g.revoked_at', 'g.last_used_at', 'u.id', 'u.email', 'u.name', 'u.role', 'u.kind', 'u.active'])
      .where('t.token_hash', '=', hashSecret(token))
      .where('t.kind', '=', 'access')
      .executeTakeFirst()
    const now = this.clock.now()
    if (!row || row.revoked_at !== null) throw new OauthTokenError('The access token is unknown or revoked')
    if (row.expires_at <= isoTime(now)) throw new OauthTokenError('The access token has expired')
    // RFC 8707 audience binding: a token for one agent's URL is worthless at another's.
    if (row.resource !== resource) throw new OauthTokenError('The access token was issued for another resource')
    if (row.active !== 1) throw new OauthTokenError('The user of this access token is deactivated')
    if (row.last_used_at === null || Date.parse(row.last_used_at) + TOUCH_INTERVAL_MS <= now)
      await this.db
        .updateTable('oauth_grants')
        .set({ last_used_at: isoTime(now) })
        .where('id', '=', row.grant_id)
        .execute()
    return { userId: row.id, email: row.email, name: row.name, role: row.role, kind: row.kind, via: 'oauth', tokenId: row.grant_id }
  }

  /** Housekeeping: expired tokens, requests older than a day, grants expired or revoked more than 30 days ago. */
  async prune(): Promise<void> {
    const now = this.clock.now()
    await this.db.deleteFrom('oauth_tokens').where('expires_at', '<=', isoTime(now)).execute()
    await this.db
      .deleteFrom('oauth_requests')
      .where('created_at', '<', isoTime(now - 24 * 3600 * 1000))
      .execute()
    const longAgo = isoTime(now - 30 * 24 * 3600 * 1000)
    await this.db
      .deleteFrom('oauth_grants')
      .where((eb) => eb.or([eb('expires_at', '<', longAgo), eb('revoked_at', '<', longAgo)]))
      .execute()
  }
}
