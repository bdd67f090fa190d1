// Console sessions: one per sign-in from the console, shared by the browser's tabs through the HttpOnly refresh cookie.
// Only hashes of refresh tokens are stored, in the database (any instance can refresh). A refresh rotates the token;
// the one it replaced still works for a few seconds (two tabs opened together send the same cookie), and after that
// presenting it again ends the session: someone holds a copy.
import type { Kysely } from 'kysely'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { newId, randomToken, sha256Hex } from '../../platform/ids.ts'
import { ACCESS_TOKEN_TTL_S } from './access-tokens.ts'

/** A session lasts as long as one access token did before sessions were shared: refreshing never extends it. */
export const SESSION_TTL_MS = ACCESS_TOKEN_TTL_S * 1000
/** How long the refresh token a rotation replaced is still accepted (tabs racing each other), without a new one. */
export const ROTATION_GRACE_MS = 30_000

export interface SessionUser {
  id: string
  role: 'admin' | 'member'
  session_version: number
}

export interface NewSession {
  readonly id: string
  /** The refresh token, for the cookie; only its hash is kept. */
  readonly token: string
  readonly expiresAt: number
}

export type RefreshOutcome =
  /** `token`: the rotated refresh token for the cookie, or null when a just-replaced one was accepted (keep the cookie). */
  | { readonly ok: true; readonly user: SessionUser; readonly sessionId: string; readonly expiresAt: number; readonly token: string | null }
  | { readonly ok: false }

export class ConsoleSessions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async create(user: SessionUser): Promise<NewSession> {
    const now = this.clock.now()
    const token = randomToken()
    const session = { id: newId(), token, expiresAt: now + SESSION_TTL_MS }
    await this.db
      .insertInto('auth_sessions')
      .values({
        id: session.id,
        user_id: user.id,
        token_hash: sha256Hex(token),
        previous_token_hash: null,
        rotated_at: null,
        session_version: user.session_version,
        created_at: isoTime(now),
        expires_at: isoTime(session.expiresAt),
        revoked_at: null,
      })
      .execute()
    return session
  }

  /**
   * Exchanges a refresh token: the current one is rotated; the one just replaced is accepted within the grace period
   * without rotating; anything else fails, and an old token presented after the grace ends its session. A session
   * also fails (and is ended) once its user is deactivated or their session_version moved (password change or reset).
   */
  async refresh(token: string): Promise<RefreshOutcome> {
    const hash = sha256Hex(token)
    const now = this.clock.now()
    return this.db.transaction().execute(async (trx): Promise<RefreshOutcome> => {
      const row = await trx
        .selectFrom('auth_sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select([
          's.id',
          's.user_id',
          's.token_hash',
          's.rotated_at',
          's.session_version',
          's.expires_at',
          's.revoked_at',
          'u.role',
          'u.active',
          'u.session_version as user_version',
        ])
        .where((eb) => eb.or([eb('s.token_hash', '=', hash), eb('s.previous_token_hash', '=', hash)]))
        .executeTakeFirst()
      if (!row || row.revoked_at !== null || Date.parse(row.expires_at) <= now) return { ok: false }
      const end = () =>
        trx
          .updateTable('auth_sessions')
          .set({ revoked_at: isoTime(now) })
          .where('id', '=', row.id)
          .execute()
      if (row.active !== 1 || row.user_version !== row.session_version) {
        await end()
        return { ok: false }
      }
      const user: SessionUser = { id: row.user_id, role: row.role, session_version: row.user_version }
      const found = { ok: true as const, sessionId: row.id, expiresAt: Date.parse(row.expires_at) }
      if (row.token_hash !== hash) {
        if (row.rotated_at !== null && now - Date.parse(row.rotated_at) <= ROTATION_GRACE_MS) return { ...found, user, token: null }
        await end()
        return { ok: false }
      }
      const next = randomToken()
      await trx
        .updateTable('auth_sessions')
        .set({ token_hash: sha256Hex(next), previous_token_hash: hash, rotated_at: isoTime(now) })
        .where('id', '=', row.id)
        .execute()
      return { ...found, user, token: next }
    })
  }

  /** Ends the session a refresh token (current or just replaced) belongs to, and the session `id`; unknown ones are ignored. */
  async end(ids: { token?: string | null; sessionId?: string | null }): Promise<void> {
    const now = isoTime(this.clock.now())
    const hash = ids.token ? sha256Hex(ids.token) : null
    if (!hash && !ids.sessionId) return
    await this.db
      .updateTable('auth_sessions')
      .set({ revoked_at: now })
      .where('revoked_at', 'is', null)
      .where((eb) => {
        const matches = []
        if (hash) matches.push(eb('token_hash', '=', hash), eb('previous_token_hash', '=', hash))
        if (ids.sessionId) matches.push(eb('id', '=', ids.sessionId))
        return eb.or(matches)
      })
      .execute()
  }

  /** The live session a refresh token names (to keep it across a password change), or null. */
  async idOf(token: string | null): Promise<string | null> {
    if (!token) return null
    const row = await this.db
      .selectFrom('auth_sessions')
      .select('id')
      .where('token_hash', '=', sha256Hex(token))
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', isoTime(this.clock.now()))
      .executeTakeFirst()
    return row?.id ?? null
  }

  /** Housekeeping: sessions past their end (revoked ones too: an expired token is refused whatever its state). */
  async prune(): Promise<void> {
    await this.db.deleteFrom('auth_sessions').where('expires_at', '<=', isoTime(this.clock.now())).execute()
  }
}
