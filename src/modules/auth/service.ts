// Sign-in, console sessions (refresh and sign-out), password change and personal API tokens (docs/api.md "Sign-in,
// tokens and roles").
import type { Kysely } from 'kysely'
import { writeAudit } from '../../platform/audit.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { HttpError } from '../../platform/http/http-error.ts'
import { throttleKey } from '../../platform/http/client-address.ts'
import { badRequest, forbidden, notFound } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import { ACCESS_TOKEN_TTL_S, signAccessToken, verifyAccessToken } from './access-tokens.ts'
import { mintApiToken } from './api-tokens.ts'
import { knownDevice, mintDeviceCookie } from './device-cookie.ts'
import type { Passwords } from './passwords.ts'
import type { LoginAttempt, LoginThrottle } from './rate-limit.ts'
import type { ConsoleSessions, SessionUser } from './sessions.ts'

export const INVALID_CREDENTIALS = 'Invalid credentials'

export interface AccessTokenResponse {
  access_token: string
  token_type: 'bearer'
  expires_in: number
}

export interface ApiTokenRecord {
  id: string
  name: string
  kind: 'org' | 'pat'
  hint: string
  created_at: string
  revoked_at: string | null
}

/** Where a sign-in (or a password check, which counts like one) comes from. */
export interface SignInContext {
  /** The client address (platform/http/client-address.ts). */
  readonly address: string
  /** The device cookie as the browser sent it, or null. */
  readonly deviceCookie: string | null
  /** Sent from the console's own page: start a console session (refresh cookie) and issue a device cookie. */
  readonly console: boolean
}

export interface SignedIn {
  readonly token: AccessTokenResponse
  /** The console session's new refresh token (for the cookie), or null when no console session was started. */
  readonly refreshToken: string | null
  /** A device cookie value to set, or null. */
  readonly deviceCookie: string | null
}

export interface Refreshed {
  readonly token: AccessTokenResponse
  /** The rotated refresh token, or null when the cookie the browser holds already is the current one. */
  readonly refreshToken: string | null
}

export const TOO_MANY_ATTEMPTS = 'Too many failed sign-in attempts; try again later'
export const WRONG_CURRENT_PASSWORD = 'Current password is incorrect'

export interface AuthServiceOptions {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly limiter: LoginThrottle
  readonly sessions: ConsoleSessions
  readonly passwords: Passwords
  /** Waits before checking a password on an account under attack (default: a real sleep). */
  readonly sleep?: (ms: number) => Promise<void>
  readonly accessTokenKey: () => Buffer | null
}

export class AuthService {
  readonly #o: AuthServiceOptions

  constructor(options: AuthServiceOptions) {
    this.#o = options
  }

  /**
   * An access token for `user`; one of a console session names it (`sid`) and ends when the session does, so that
   * signing out ends every tab's token.
   */
  issueAccessToken(user: SessionUser, session?: { id: string; expiresAt: number }): AccessTokenResponse {
    const key = this.#o.accessTokenKey()
    if (!key) throw new HttpError(401, INVALID_CREDENTIALS)
    const iat = Math.floor(this.#o.clock.now() / 1000)
    const exp = session ? Math.min(iat + ACCESS_TOKEN_TTL_S, Math.floor(session.expiresAt / 1000)) : iat + ACCESS_TOKEN_TTL_S
    const claims = { sub: user.id, role: user.role, sv: user.session_version, iat, exp, jti: newId(), ...(session && { sid: session.id }) }
    return { access_token: signAccessToken(key, claims), token_type: 'bearer', expires_in: exp - iat }
  }

  /** Counts an attempt against the throttle (a known browser by its device cookie, else by its address), or throws 429. */
  async #beginAttempt(email: string, from: SignInContext): Promise<LoginAttempt & { allowed: true }> {
    const device = knownDevice(this.#o.accessTokenKey(), email, from.deviceCookie)
    const attempt = await this.#o.limiter.begin(email, throttleKey(from.address), device)
    if (!attempt.allowed) throw new HttpError(429, TOO_MANY_ATTEMPTS, { 'retry-after': String(attempt.retryAfterSeconds) })
    return attempt
  }

  async #startSession(user: SessionUser, from: SignInContext, email: string): Promise<SignedIn> {
    if (!from.console) return { token: this.issueAccessToken(user), refreshToken: null, deviceCookie: null }
    const session = await this.#o.sessions.create(user)
    const key = this.#o.accessTokenKey()
    return {
      token: this.issueAccessToken(user, session),
      refreshToken: session.token,
      deviceCookie: key ? mintDeviceCookie(key, email) : null,
    }
  }

  /**
   * Unknown e-mail and wrong password get the same 401 after the same argon2 work. The attempt is counted before the
   * verify (so parallel guesses cannot all pass the throttle) and taken back on success; see rate-limit.ts for the
   * per (account, address), per-address, per-account and known-browser rules.
   */
  async login(email: string, password: string, from: SignInContext): Promise<SignedIn> {
    const normalised = email.trim().toLowerCase()
    const attempt = await this.#beginAttempt(normalised, from)
    if (attempt.delayMs > 0) await (this.#o.sleep ?? Bun.sleep)(attempt.delayMs)

    const user = await this.#o.db
      .selectFrom('users')
      .select(['id', 'role', 'password_hash', 'active', 'session_version', 'kind'])
      .where('email', '=', normalised)
      .executeTakeFirst()
    const usable = user !== undefined && user.kind === 'person' && user.active === 1 && user.password_hash !== null
    const { passwords } = this.#o
    const ok = await passwords.verify(password, usable ? user.password_hash! : await passwords.decoy())
    if (!usable || !ok) throw new HttpError(401, INVALID_CREDENTIALS, { 'www-authenticate': 'Bearer' })
    await attempt.succeeded()
    return this.#startSession(user, from, normalised)
  }

  /** A fresh access token for the console session the refresh cookie names (rotating it), or null: no live session. */
  async refresh(refreshToken: string | null): Promise<Refreshed | null> {
    if (!refreshToken || !this.#o.accessTokenKey()) return null
    const outcome = await this.#o.sessions.refresh(refreshToken)
    if (!outcome.ok) return null
    return { token: this.issueAccessToken(outcome.user, { id: outcome.sessionId, expiresAt: outcome.expiresAt }), refreshToken: outcome.token }
  }

  /** Ends the console session of the refresh cookie and the one the bearer access token belongs to, if any. */
  async logout(refreshToken: string | null, authorization: string | null): Promise<void> {
    await this.#o.sessions.end({ token: refreshToken, sessionId: this.#sessionOfBearer(authorization) })
  }

  #sessionOfBearer(authorization: string | null): string | null {
    const key = this.#o.accessTokenKey()
    if (!key || !authorization?.toLowerCase().startsWith('bearer ')) return null
    return verifyAccessToken(key, authorization.slice(7).trim(), this.#o.clock.now())?.sid ?? null
  }

  /**
   * Checks the current password like a sign-in (same throttle; a wrong one is 403, so a stolen session cannot guess it
   * freely), then bumps session_version: every access token and console session of the user ends. The caller gets a
   * fresh access token, in a new console session when the request came from one (`refreshToken` names it). Personal
   * API tokens and OAuth grants stay.
   */
  async changePassword(
    principal: Principal,
    currentPassword: string,
    newPassword: string,
    from: SignInContext & { readonly refreshToken: string | null },
  ): Promise<SignedIn> {
    const user = await this.#o.db
      .selectFrom('users')
      .select(['id', 'email', 'role', 'password_hash', 'session_version'])
      .where('id', '=', principal.userId)
      .executeTakeFirstOrThrow()
    if (!user.password_hash) throw badRequest('This account has no password')
    const attempt = await this.#beginAttempt(user.email, from)
    if (attempt.delayMs > 0) await (this.#o.sleep ?? Bun.sleep)(attempt.delayMs)
    if (!(await this.#o.passwords.verify(currentPassword, user.password_hash))) throw forbidden(WRONG_CURRENT_PASSWORD)
    await attempt.succeeded()
    const inSession = from.console && (await this.#o.sessions.idOf(from.refreshToken)) !== null
    const hash = await this.#o.passwords.hash(newPassword)
    const updated = await this.#o.db
      .updateTable('users')
      .set((eb) => ({ password_hash: hash, session_version: eb('session_version', '+', 1), updated_at: isoTime(this.#o.clock.now()) }))
      .where('id', '=', user.id)
      .returning(['id', 'role', 'session_version'])
      .executeTakeFirstOrThrow()
    await this.#o.sessions.end({ token: from.refreshToken })
    return this.#startSession(updated, { ...from, console: inSession }, user.email)
  }

  /** Housekeeping: console sessions past their end. */
  pruneSessions(): Promise<void> {
    return this.#o.sessions.prune()
  }

  /** Tokens act as their owner; a caller holding the org token mints org tokens, anyone else personal ones. */
  async createApiToken(principal: Principal, name: string): Promise<ApiTokenRecord & { token: string }> {
    const kind = principal.kind === 'organisation' ? 'org' : 'pat'
    const minted = mintApiToken(kind)
    const record = { id: newId(), name, kind, hint: minted.hint, created_at: isoTime(this.#o.clock.now()), revoked_at: null } as const
    await this.#o.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('api_tokens')
        .values({ ...record, user_id: principal.userId, token_hash: minted.hash })
        .execute()
      await writeAudit(trx, this.#o.clock, {
        actor_id: principal.userId,
        action: 'token.create',
        target_type: 'api_token',
        target_id: record.id,
        details: { name, kind, hint: minted.hint },
      })
    })
    return { ...record, token: minted.token }
  }

  async listApiTokens(principal: Principal): Promise<ApiTokenRecord[]> {
    return this.listApiTokensOf(principal.userId)
  }

  /** Any user's tokens, for admins (GET /api/users/{id}/tokens); 404 for an unknown user. */
  async listApiTokensOf(userId: string): Promise<ApiTokenRecord[]> {
    await this.#userExists(userId)
    return (
      this.#o.db
        .selectFrom('api_tokens')
        .select(['id', 'name', 'kind', 'hint', 'created_at', 'revoked_at'])
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        // Tokens made in the same millisecond come in one order on either database: by id, which also grows with time.
        .orderBy('id', 'desc')
        .execute()
    )
  }

  /** Revokes every live token of a user at once (a lost laptop, a leaked script); answers how many were live. */
  async revokeAllApiTokens(userId: string, actorId: string): Promise<{ revoked: number }> {
    await this.#userExists(userId)
    return this.#o.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('api_tokens')
        .set({ revoked_at: isoTime(this.#o.clock.now()) })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      const revoked = Number(result.numUpdatedRows)
      if (revoked > 0)
        await writeAudit(trx, this.#o.clock, { actor_id: actorId, action: 'token.revoke_all', target_type: 'user', target_id: userId, details: { revoked } })
      return { revoked }
    })
  }

  async #userExists(userId: string): Promise<void> {
    const user = await this.#o.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()
    if (!user) throw notFound('User not found')
  }

  /** Owners revoke their own tokens; admins any token. Revoking twice is harmless. */
  async revokeApiToken(principal: Principal, tokenId: string): Promise<ApiTokenRecord> {
    let query = this.#o.db.selectFrom('api_tokens').select(['id', 'user_id', 'revoked_at']).where('id', '=', tokenId)
    if (principal.role !== 'admin') query = query.where('user_id', '=', principal.userId)
    const token = await query.executeTakeFirst()
    if (!token) throw notFound('Token not found')
    const revokedAt = token.revoked_at ?? isoTime(this.#o.clock.now())
    return this.#o.db.transaction().execute(async (trx) => {
      if (token.revoked_at === null) {
        await writeAudit(trx, this.#o.clock, {
          actor_id: principal.userId,
          action: 'token.revoke',
          target_type: 'api_token',
          target_id: tokenId,
          details: { owner_id: token.user_id },
        })
      }
      return trx
        .updateTable('api_tokens')
        .set({ revoked_at: revokedAt })
        .where('id', '=', tokenId)
        .returning(['id', 'name', 'kind', 'hint', 'created_at', 'revoked_at'])
        .executeTakeFirstOrThrow()
    })
  }
}
