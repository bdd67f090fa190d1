// First run: the one-time setup token, and provisioning the tenant from a licence in one transaction (docs/api.md "First run and licences").
import { isUniqueViolation } from '../../platform/db/unique-violation.ts'
import type { Static } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { notAuthenticated } from '../../platform/http/http-error.ts'
import { conflict } from '../../platform/errors.ts'
import { newId, randomToken, safeEqual } from '../../platform/ids.ts'
import { KeyedLock } from '../../platform/keyed-lock.ts'
import { agreeOnFingerprint, keyFingerprint, notSharedDirectory, recordFingerprint, storedFingerprint } from '../../platform/cluster/shared-keys.ts'
import type { Logger } from '../../platform/log.ts'
import type { SecretStore } from '../../platform/secrets/secret-files.ts'
import { mintApiToken } from '../auth/index.ts'
import type { Passwords } from '../auth/index.ts'
import type { LicenseService } from '../license/index.ts'
import type { SetupBody } from './schema.ts'

export const SETUP_TOKEN_FILE = 'setup-token'
export const ACCESS_TOKEN_KEY_FILE = 'access-token-key'
/** A shared setup's key before its transaction commits (access-token-key.pending-<id>). */
const PENDING_KEY_PREFIX = `${ACCESS_TOKEN_KEY_FILE}.pending-`
export const ALREADY_PROVISIONED = 'Tenant already provisioned'
/** The organisation's own account has an address that can never be a real mailbox (RFC 2606). */
export const ORGANISATION_EMAIL = 'organisation@agentbox.invalid'

export type SetupInput = Static<typeof SetupBody>

export interface TenantServiceOptions {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly logger: Logger
  readonly secrets: SecretStore
  readonly license: LicenseService
  readonly passwords: Passwords
  /** A token the operator chose (AGENTBOX_SETUP_TOKEN) instead of a generated one. */
  readonly configuredSetupToken: string | null
  /**
   * Several instances share the database and the secrets directory (PostgreSQL): setup may happen on another instance,
   * and the signing key must be the one every instance has (its fingerprint is recorded in the database).
   */
  readonly shared?: boolean
}

export class TenantService {
  readonly #options: TenantServiceOptions
  #provisioned = false
  #setupToken: string | null = null
  #accessTokenKey: Buffer | null = null
  /** Setups run one at a time, so the key on disk is always the key of the setup that won. */
  readonly #setupLock = new KeyedLock()

  constructor(options: TenantServiceOptions) {
    this.#options = options
  }

  get provisioned(): boolean {
    return this.#provisioned
  }

  /** The HS256 key for access tokens; null until setup has run. */
  get accessTokenKey(): Buffer | null {
    return this.#accessTokenKey
  }

  /**
   * At boot: a provisioned instance destroys any leftover setup token and loads its signing key;
   * an unprovisioned one makes sure a setup token exists and returns it, so the caller can print the link.
   */
  async boot(): Promise<string | null> {
    const { db, secrets, logger, configuredSetupToken } = this.#options
    this.#provisioned = (await db.selectFrom('instance').select('id').executeTakeFirst()) !== undefined
    if (this.#provisioned) {
      secrets.remove(SETUP_TOKEN_FILE)
      const key = secrets.read(ACCESS_TOKEN_KEY_FILE)
      if (this.#options.shared) {
        this.#accessTokenKey = await this.#sharedAccessTokenKey(key)
        return null
      }
      if (!key) {
        logger.warn('access-token key was missing; made a new one, so everyone signs in again')
        secrets.write(ACCESS_TOKEN_KEY_FILE, randomToken(32))
      }
      this.#accessTokenKey = Buffer.from(secrets.read(ACCESS_TOKEN_KEY_FILE)!, 'base64url')
      return null
    }
    const token = configuredSetupToken ?? secrets.read(SETUP_TOKEN_FILE) ?? randomToken(24)
    secrets.write(SETUP_TOKEN_FILE, token)
    this.#setupToken = token
    return token
  }

  /**
   * Several instances: the signing key in the shared secrets directory, checked against the fingerprint the database
   * holds (recorded by the first instance that had it). A missing or different key is a boot error: a key made here
   * would sign tokens no other instance accepts.
   */
  async #sharedAccessTokenKey(found: string | null): Promise<Buffer> {
    let key = found
    const { db, secrets } = this.#options
    const stored = await storedFingerprint(db, 'access_token_key')
    if (!key && stored) {
      // A setup that committed and stopped before renaming its key: the pending file the database names is the key.
      const pending = secrets.list(PENDING_KEY_PREFIX).find((name) => keyFingerprint(Buffer.from(secrets.read(name) ?? '', 'base64url')) === stored)
      if (pending) {
        key = secrets.read(pending)
        secrets.write(ACCESS_TOKEN_KEY_FILE, key!)
        secrets.remove(pending)
      }
    }
    if (!key) {
      if (stored) throw notSharedDirectory(secrets.dir, `has no ${ACCESS_TOKEN_KEY_FILE} (the key access tokens are signed with)`)
      this.#options.logger.warn('access-token key was missing; made a new one, so everyone signs in again')
      secrets.write(ACCESS_TOKEN_KEY_FILE, randomToken(32))
    }
    const bytes = Buffer.from(secrets.read(ACCESS_TOKEN_KEY_FILE)!, 'base64url')
    const agreed = stored ?? (await agreeOnFingerprint(db, 'access_token_key', keyFingerprint(bytes)))
    if (agreed !== keyFingerprint(bytes))
      throw notSharedDirectory(secrets.dir, `holds an ${ACCESS_TOKEN_KEY_FILE} other than the one the other instances sign with`)
    return bytes
  }

  /**
   * Several instances: setup may have run on another one since this one booted. Until this instance knows it is
   * provisioned, each request asks the database (one indexed read); once it is, it reads the signing key setup wrote to
   * the shared secrets directory and stops asking. The licence reloads itself (its revision moved with setup).
   */
  async refresh(): Promise<void> {
    if (this.#provisioned || !this.#options.shared) return
    const { db, secrets } = this.#options
    if ((await db.selectFrom('instance').select('id').executeTakeFirst()) === undefined) return
    const key = secrets.read(ACCESS_TOKEN_KEY_FILE)
    const stored = await storedFingerprint(db, 'access_token_key')
    if (!key || (stored !== null && stored !== keyFingerprint(Buffer.from(key, 'base64url')))) {
      // Provisioned elsewhere with a key this directory does not have: no token could be signed or checked here.
      this.#options.logger.error('setup ran on another instance, but this instance cannot read its signing key', {
        error: notSharedDirectory(secrets.dir, `has no ${ACCESS_TOKEN_KEY_FILE} matching the other instances'`).message,
      })
      this.#provisioned = true
      this.#setupToken = null
      return
    }
    this.#accessTokenKey = Buffer.from(key, 'base64url')
    this.#setupToken = null
    this.#provisioned = true
  }

  /** Runs before the body is validated: 409 to everyone once provisioned, then 401 without the right setup token. */
  authorizeSetup(authorization: string | null): void {
    if (this.#provisioned) throw conflict(ALREADY_PROVISIONED)
    const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim()
    if (!bearer || !this.#setupToken || !safeEqual(bearer, this.#setupToken)) throw notAuthenticated()
  }

  /**
   * Steps performed:
   * 1. verify the licence (422 on license_token) and hash the password, outside the transaction (slow, no writes);
   * 2. write a fresh access-token key (harmless if step 3 fails: no token was ever signed with it);
   * 3. one transaction: instance row (id = 1, so a racing second setup fails), organisation account, admin, licence, org token;
   * 4. only after the commit: mark provisioned and destroy the setup token. A failure anywhere leaves the instance retryable.
   */
  setup(input: SetupInput): Promise<{ tenant_org_token: string }> {
    // Two racing setups used to write two keys: the loser's could stay on disk while the winner's signed sessions,
    // so every session died at the next restart. Queued, the second sees the first's result (409) before writing.
    return this.#setupLock.run('setup', () => this.#setupAlone(input))
  }

  async #setupAlone(input: SetupInput): Promise<{ tenant_org_token: string }> {
    if (this.#provisioned) throw conflict(ALREADY_PROVISIONED)
    const { db, clock, secrets, license } = this.#options
    const claims = license.claimsForSetup(input.license_token, input.org_name)
    const passwordHash = await this.#options.passwords.hash(input.admin_password)
    const key = randomToken(32)
    // Several instances: a setup racing on another instance must not overwrite the winner's key in the shared
    // directory, so the key waits under a name of its own and becomes the key file only once this setup has won.
    const keyFile = this.#options.shared ? `${PENDING_KEY_PREFIX}${newId()}` : ACCESS_TOKEN_KEY_FILE
    secrets.write(keyFile, key)

    const now = isoTime(clock.now())
    const orgUserId = newId()
    const orgToken = mintApiToken('org')
    try {
      await db.transaction().execute(async (trx) => {
        if (await trx.selectFrom('instance').select('id').executeTakeFirst()) throw conflict(ALREADY_PROVISIONED)
        await trx
          .insertInto('users')
          .values([
            {
              id: orgUserId,
              kind: 'organisation',
              email: ORGANISATION_EMAIL,
              name: claims.org,
              role: 'admin',
              password_hash: null,
              active: 1,
              session_version: 0,
              created_at: now,
              updated_at: now,
            },
            {
              id: newId(),
              kind: 'person',
              email: input.admin_email.trim().toLowerCase(),
              name: input.admin_name,
              role: 'admin',
              password_hash: passwordHash,
              active: 1,
              session_version: 0,
              created_at: now,
              updated_at: now,
            },
          ])
          .execute()
        // Every instance must sign with this key: the fingerprint they compare theirs with at boot.
        if (this.#options.shared) await recordFingerprint(trx, 'access_token_key', keyFingerprint(Buffer.from(key, 'base64url')))
        await trx.insertInto('instance').values({ id: 1, provisioned_at: now, org_name: claims.org, customer_id: claims.sub, org_user_id: orgUserId }).execute()
        await license.insert(trx, claims, input.license_token, null)
        await trx
          .insertInto('api_tokens')
          .values({
            id: newId(),
            user_id: orgUserId,
            kind: 'org',
            name: 'tenant_org_token',
            token_hash: orgToken.hash,
            hint: orgToken.hint,
            created_at: now,
            revoked_at: null,
          })
          .execute()
      })
    } catch (error) {
      if (keyFile !== ACCESS_TOKEN_KEY_FILE) secrets.remove(keyFile)
      // The instance row's key (id = 1) is the guard against a second setup that raced this one.
      if (isUniqueViolation(error)) throw conflict(ALREADY_PROVISIONED)
      throw error
    }
    if (keyFile !== ACCESS_TOKEN_KEY_FILE) {
      secrets.write(ACCESS_TOKEN_KEY_FILE, key)
      secrets.remove(keyFile)
    }

    this.#provisioned = true
    this.#accessTokenKey = Buffer.from(key, 'base64url')
    this.#setupToken = null
    secrets.remove(SETUP_TOKEN_FILE)
    await license.load()
    return { tenant_org_token: orgToken.token }
  }
}
