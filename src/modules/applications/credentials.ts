// Credentials connected to an application, one per security scheme and owner: the caller's own, or the
// organisation's for applications imported with shared_security_info. They are sealed secrets of the namespace
// `app_credential` (platform/secrets): subject = application id, owner = user id or `org`, name = scheme. Never
// returned or logged; lists say only whether each scheme is connected. Every change reaches the next call: the vault's
// revision moves with each write.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { ApplicationsTable } from '../../platform/db/tables/applications.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { badRequest, forbidden, invalidInput, notFound, type InputIssue } from '../../platform/errors.ts'
import {
  buildCredential,
  type Credential,
  CredentialRefreshError,
  ORG_OWNER,
  SecretBoxError,
  type SecretNamespace,
  type SecretNamespaceDefinition,
} from '../../platform/secrets/index.ts'
import { visibleApplication } from './access.ts'
import { credentialTypeOf, type CredentialType, type SecurityRequirement, type SecurityScheme } from './document/security.ts'

/** The secrets namespace of applications' credentials: the name is bound into every stored value, never renamed. */
export const APPLICATION_CREDENTIALS: SecretNamespaceDefinition = {
  name: 'app_credential',
  label: 'application credentials',
  types: ['basic', 'bearer', 'api_key', 'oauth2'],
}

export interface CredentialInput {
  scheme: string
  username?: string
  password?: string
  token?: string
  api_key?: string
  /** OAuth 2 / OpenID Connect schemes: the refresh token that renews `token`. */
  refresh_token?: string
  /** Seconds `token` stays valid (from now). */
  expires_in?: number
  /** Where `refresh_token` is sent. */
  token_url?: string
  client_id?: string
  client_secret?: string
}

export interface CredentialEntry {
  scheme: string
  type: CredentialType
  scope: 'org' | 'user'
  connected: boolean
  /** Why a stored credential cannot be used (its key is missing); absent otherwise. */
  reason?: string
  updated_at: string | null
}

type InputField = Exclude<keyof CredentialInput, 'scheme'>
const INPUT_FIELDS: readonly InputField[] = [
  'username',
  'password',
  'token',
  'api_key',
  'refresh_token',
  'expires_in',
  'token_url',
  'client_id',
  'client_secret',
]
const OAUTH_FIELDS: readonly InputField[] = ['token', 'refresh_token', 'expires_in', 'token_url', 'client_id', 'client_secret']
/** Fields that hold a secret: never quoted back in an error. */
const SECRET_FIELDS: ReadonlySet<InputField> = new Set(['password', 'token', 'api_key', 'refresh_token', 'client_secret'])

/** The fields a scheme takes: OAuth 2 and OpenID Connect schemes also take what refreshing their token needs. */
function fieldsOf(scheme: SecurityScheme, type: CredentialType): { wanted: readonly InputField[]; required: readonly InputField[] } {
  if (type === 'basic') return { wanted: ['username', 'password'], required: ['username', 'password'] }
  if (type === 'api_key') return { wanted: ['api_key'], required: ['api_key'] }
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return { wanted: OAUTH_FIELDS, required: ['token'] }
  return { wanted: ['token'], required: ['token'] }
}

/** A secret ready to apply to a request. */
export type OpenedCredential =
  | { scheme: SecurityScheme; type: 'basic'; username: string; password: string }
  | { scheme: SecurityScheme; type: 'bearer'; token: string }
  | { scheme: SecurityScheme; type: 'api_key'; api_key: string }

/** The stored credential as the scheme applies it; null when it does not fit the scheme (stored for another type). */
function applied(scheme: SecurityScheme, type: CredentialType, credential: Credential): OpenedCredential | null {
  if (type === 'basic' && credential.type === 'basic') return { scheme, type, username: credential.username, password: credential.password }
  if (type === 'api_key' && credential.type === 'api_key') return { scheme, type, api_key: credential.api_key }
  if (type === 'bearer' && credential.type === 'bearer') return { scheme, type, token: credential.token }
  if (type === 'bearer' && credential.type === 'oauth2') return { scheme, type, token: credential.access_token }
  return null
}

export const schemesOf = (app: Pick<ApplicationsTable, 'security_schemes'>): SecurityScheme[] => JSON.parse(app.security_schemes)

const ownerFor = (app: ApplicationsTable, principal: Principal): string => (app.shared_security_info === 1 ? ORG_OWNER : principal.userId)

export interface ApplicationCredentialsDependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  /** The namespace APPLICATION_CREDENTIALS, declared on the vault. */
  readonly store: SecretNamespace
  /** Null when a URL may be called (a refresh token's token_url), else why not. */
  readonly checkUrl: (url: string) => Promise<string | null>
}

export class ApplicationCredentials {
  readonly #deps: ApplicationCredentialsDependencies

  constructor(deps: ApplicationCredentialsDependencies) {
    this.#deps = deps
  }

  async list(principal: Principal, apiName: string): Promise<CredentialEntry[]> {
    const app = await visibleApplication(this.#deps.db, principal, apiName)
    const owner = ownerFor(app, principal)
    const stored = await this.#deps.store.status(app.id, owner)
    const entries: CredentialEntry[] = []
    for (const scheme of schemesOf(app)) {
      const type = credentialTypeOf(scheme)
      if (!type) continue
      const status = stored.get(scheme.name)
      const entry: CredentialEntry = {
        scheme: scheme.name,
        type,
        scope: owner === ORG_OWNER ? 'org' : 'user',
        connected: status !== undefined && status.problem === null,
        updated_at: status?.updated_at ?? null,
      }
      if (status?.problem) entry.reason = `Reconnect this credential: ${status.problem}`
      entries.push(entry)
    }
    return entries
  }

  async put(principal: Principal, apiName: string, input: CredentialInput): Promise<CredentialEntry> {
    const app = await visibleApplication(this.#deps.db, principal, apiName)
    if (app.shared_security_info === 1 && principal.role !== 'admin') throw forbidden("Only an admin may set this application's shared credential")
    const schemes = schemesOf(app)
    const scheme = schemes.find((candidate) => candidate.name === input.scheme)
    const type = scheme ? credentialTypeOf(scheme) : null
    if (!scheme || !type) {
      const usable = schemes.filter((candidate) => credentialTypeOf(candidate) !== null).map((candidate) => candidate.name)
      throw invalidInput({
        loc: ['scheme'],
        msg:
          usable.length > 0
            ? `Input should be ${usable.map((name) => `'${name}'`).join(', ')}`
            : 'This application has no security scheme a credential can be set for',
        type: 'literal_error',
        input: input.scheme,
        ctx: { expected: usable.join(', ') },
      })
    }
    const issues = await this.#issues(scheme, type, input)
    if (issues.length > 0) throw invalidInput(...issues)

    const owner = ownerFor(app, principal)
    const credential = this.#credentialFrom(type, input)
    const { store, clock } = this.#deps
    const updatedAt = await inTransaction(this.#deps.db, async (trx) => {
      const at = await store.put(trx, { subject: app.id, owner, name: scheme.name }, credential, principal.userId)
      if (owner === ORG_OWNER)
        await writeAudit(trx, clock, {
          actor_id: principal.userId,
          action: 'application.credential_set',
          target_type: 'application',
          target_id: app.api_name,
          details: { scheme: scheme.name },
        })
      return at
    })
    return { scheme: scheme.name, type, scope: owner === ORG_OWNER ? 'org' : 'user', connected: true, updated_at: updatedAt }
  }

  async clear(principal: Principal, apiName: string, schemeName: string): Promise<void> {
    const app = await visibleApplication(this.#deps.db, principal, apiName)
    if (app.shared_security_info === 1 && principal.role !== 'admin') throw forbidden("Only an admin may clear this application's shared credential")
    if (!schemesOf(app).some((scheme) => scheme.name === schemeName)) throw notFound('Security scheme not found')
    const owner = ownerFor(app, principal)
    const { store, clock } = this.#deps
    await inTransaction(this.#deps.db, async (trx) => {
      const removed = await store.remove(trx, { subject: app.id, owner, name: schemeName })
      if (owner === ORG_OWNER && removed)
        await writeAudit(trx, clock, {
          actor_id: principal.userId,
          action: 'application.credential_clear',
          target_type: 'application',
          target_id: app.api_name,
          details: { scheme: schemeName },
        })
    })
  }

  /**
   * The credentials for one call: the first alternative of the operation's security whose schemes are all connected.
   * `[]` (no alternatives) needs none. Otherwise a 400 naming the first scheme that is missing. An OAuth 2 token about
   * to expire is refreshed first; a refresh that fails is a 400 (connect again) or a 502 (token endpoint unavailable).
   */
  async forCall(principal: Principal, app: ApplicationsTable, security: readonly SecurityRequirement[]): Promise<OpenedCredential[]> {
    if (security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0)) return []
    const owner = ownerFor(app, principal)
    const schemes = new Map(schemesOf(app).map((scheme) => [scheme.name, scheme]))
    let missing: string | null = null
    let unusable: string | null = null
    let unopenable: { scheme: string; reason: string } | null = null
    for (const requirement of security) {
      const opened: OpenedCredential[] = []
      for (const name of Object.keys(requirement)) {
        const scheme = schemes.get(name)
        const type = scheme ? credentialTypeOf(scheme) : null
        if (!scheme || !type) {
          unusable ??= name
          break
        }
        let credential: Credential | null
        try {
          credential = await this.#deps.store.openForUse({ subject: app.id, owner, name })
        } catch (error) {
          if (error instanceof CredentialRefreshError)
            throw new CredentialRefreshError(error.code, `Security scheme "${name}": ${error.message}`, error.oauthError)
          if (!(error instanceof SecretBoxError)) throw error
          unopenable ??= { scheme: name, reason: error.message }
          break
        }
        const ready = credential ? applied(scheme, type, credential) : null
        if (!ready) {
          missing ??= name
          break
        }
        opened.push(ready)
      }
      if (opened.length === Object.keys(requirement).length) return opened
    }
    const whose = owner === ORG_OWNER ? "the organisation's" : 'your'
    const connect = `connect ${whose} credential again (PUT /api/applications/${app.api_name}/credentials)`
    if (missing !== null)
      throw badRequest(`No credential for security scheme "${missing}": connect ${whose} credential first (PUT /api/applications/${app.api_name}/credentials)`)
    if (unopenable !== null) throw badRequest(`The credential for security scheme "${unopenable.scheme}" cannot be used (${unopenable.reason}): ${connect}`)
    throw badRequest(`The operation needs security scheme "${unusable}", which cannot hold a credential here`)
  }

  async #issues(scheme: SecurityScheme, type: CredentialType, input: CredentialInput): Promise<InputIssue[]> {
    const issues: InputIssue[] = []
    const { wanted, required } = fieldsOf(scheme, type)
    for (const field of INPUT_FIELDS) {
      const value = input[field]
      if (wanted.includes(field)) {
        if (value === undefined) {
          if (required.includes(field)) issues.push({ loc: [field], msg: 'Field required', type: 'missing', input: masked(input) })
        } else if (field !== 'password' && value === '')
          issues.push({ loc: [field], msg: 'String should have at least 1 character', type: 'string_too_short', input: value, ctx: { min_length: 1 } })
      } else if (value !== undefined) {
        issues.push({ loc: [field], msg: `Not used by the ${type} scheme "${scheme.name}"`, type: 'extra_forbidden', input: '***' })
      }
    }
    if (type === 'basic' && input.username?.includes(':'))
      issues.push({ loc: ['username'], msg: 'A Basic user name cannot contain ":"', type: 'value_error', input: input.username })
    if (wanted === OAUTH_FIELDS) {
      if (input.refresh_token) {
        for (const field of ['token_url', 'client_id'] as const)
          if (input[field] === undefined) issues.push({ loc: [field], msg: 'Field required with refresh_token', type: 'missing', input: masked(input) })
      } else {
        for (const field of ['token_url', 'client_id', 'client_secret'] as const)
          if (input[field] !== undefined)
            issues.push({ loc: [field], msg: 'Only used with refresh_token', type: 'value_error', input: SECRET_FIELDS.has(field) ? '***' : input[field] })
      }
      if (input.token_url) {
        const problem = await this.#deps.checkUrl(input.token_url)
        if (problem) issues.push({ loc: ['token_url'], msg: problem, type: 'value_error', input: input.token_url })
      }
    }
    return issues
  }

  /** The model's credential from checked input: a pasted token alone stays a bearer token; with a lifetime or a refresh token it is OAuth 2. */
  #credentialFrom(type: CredentialType, input: CredentialInput): Credential {
    if (type === 'basic') return buildCredential('basic', { username: input.username, password: input.password })
    if (type === 'api_key') return buildCredential('api_key', { api_key: input.api_key })
    if (input.refresh_token === undefined && input.expires_in === undefined) return buildCredential('bearer', { token: input.token })
    return buildCredential('oauth2', {
      access_token: input.token,
      refresh_token: input.refresh_token,
      expires_at: input.expires_in === undefined ? undefined : isoTime(this.#deps.clock.now() + input.expires_in * 1000),
      token_endpoint: input.token_url,
      client_id: input.client_id,
      client_secret: input.client_secret,
    })
  }
}

/** The input as an error may quote it: secret fields masked. */
function masked(input: CredentialInput): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(input)
      .filter(([, value]) => value !== undefined)
      .map(([field, value]) => [field, SECRET_FIELDS.has(field as InputField) ? '***' : value]),
  )
}
