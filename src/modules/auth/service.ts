// Sign-in, password change and personal API tokens (docs/api.md "Sign-in, tokens and roles").
import type { Kysely } from 'kysely'
import { writeAudit } from '../../platform/audit.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { HttpError } from '../../platform/http/http-error.ts'
import { badRequest, notFound } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import { ACCESS_TOKEN_TTL_S, signAccessToken } from './access-tokens.ts'
import { mintApiToken } from './api-tokens.ts'
import type { Passwords } from './passwords.ts'
import type { LoginRateLimiter } from './rate-limit.ts'

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

export interface AuthServiceOptions {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly limiter: LoginRateLimiter
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

  issueAccessToken(user: { id: string; role: 'admin' | 'member'; session_version: number }): AccessTokenResponse {
    const key = this.#o.accessTokenKey()
    if (!key) throw new HttpError(401, INVALID_CREDENTIALS)
    const iat = Math.floor(this.#o.clock.now() / 1000)
    const claims = { sub: user.id, role: user.role, sv: user.session_version, iat, exp: iat + ACCESS_TOKEN_TTL_S, jti: newId() }
    return { access_token: signAccessToken(key, claims), token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL_S }
  }

  /**
   * Unknown e-mail and wrong password get the same 401 after the same argon2 work. The attempt is counted before the
   * verify (so parallel guesses cannot all pass the throttle) and taken back on success; see rate-limit.ts for the
   * per (account, address), per-address and per-account rules.
   */
  async login(email: string, password: string, clientAddress: string): Promise<AccessTokenResponse> {
    const normalised = email.trim().toLowerCase()
    const attempt = this.#o.limiter.begin(normalised, clientAddress)
    if (!attempt.allowed) {
      throw new HttpError(429, 'Too many failed sign-in attempts; try again later', { 'retry-after': String(attempt.retryAfterSeconds) })
    }
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
    attempt.succeeded()
    return this.issueAccessToken(user)
  }

  /** Revokes every access token of the user (session_version bump) and returns a fresh one for this client. */
  async changePassword(principal: Principal, currentPassword: string, newPassword: string): Promise<AccessTokenResponse> {
    const user = await this.#o.db
      .selectFrom('users')
      .select(['id', 'role', 'password_hash', 'session_version'])
      .where('id', '=', principal.userId)
      .executeTakeFirstOrThrow()
    if (!user.password_hash) throw badRequest('This account has no password')
    if (!(await this.#o.passwords.verify(currentPassword, user.password_hash))) throw badRequest('Current password is incorrect')
    const hash = await this.#o.passwords.hash(newPassword)
    const updated = await this.#o.db
      .updateTable('users')
      .set((eb) => ({ password_hash: hash, session_version: eb('session_version', '+', 1), updated_at: isoTime(this.#o.clock.now()) }))
      .where('id', '=', user.id)
      .returning(['id', 'role', 'session_version'])
      .executeTakeFirstOrThrow()
    return this.issueAccessToken(updated)
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
    return this.#o.db
      .selectFrom('api_tokens')
      .select(['id', 'name', 'kind', 'hint', 'created_at', 'revoked_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .execute()
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
