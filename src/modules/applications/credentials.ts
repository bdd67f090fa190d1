// Credentials connected to an application, one per security scheme and owner: the caller's own, or the
// organisation's for applications imported with shared_security_info. Secrets are sealed in the secret box with
// associated data naming application, owner and scheme, so a value copied onto another row never opens; they are
// never returned or logged, and lists say only whether each scheme is connected.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { ApplicationsTable } from '../../platform/db/tables/applications.ts'
import { badRequest, forbidden, invalidInput, notFound, type InputIssue } from '../../platform/errors.ts'
import { SecretBoxError, type SealedValueStore, type SecretBox } from '../../platform/secret-box.ts'
import { visibleApplication } from './access.ts'
import { RevisionCache, type ApplicationsRevision } from './revision.ts'
import { credentialTypeOf, type CredentialType, type SecurityRequirement, type SecurityScheme } from './document/security.ts'

export const ORG_OWNER = 'org'

export interface CredentialInput {
  scheme: string
  username?: string
  password?: string
  token?: string
  api_key?: string
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

/** The secret fields of each credential type; every other field is refused. */
const FIELDS: Record<CredentialType, readonly ('username' | 'password' | 'token' | 'api_key')[]> = {
  basic: ['username', 'password'],
  bearer: ['token'],
  api_key: ['api_key'],
}

/** A secret ready to apply to a request. */
export type OpenedCredential =
  | { scheme: SecurityScheme; type: 'basic'; username: string; password: string }
  | { scheme: SecurityScheme; type: 'bearer'; token: string }
  | { scheme: SecurityScheme; type: 'api_key'; api_key: string }

const associatedData = (applicationId: string, owner: string, scheme: string) => `app_credential:${applicationId}:${owner}:${scheme}`

export const schemesOf = (app: ApplicationsTable): SecurityScheme[] => JSON.parse(app.security_schemes)

const ownerFor = (app: ApplicationsTable, principal: Principal): string => (app.shared_security_info === 1 ? ORG_OWNER : principal.userId)

export class ApplicationCredentials implements SealedValueStore {
  /** Sealed values by application and owner, for calls; emptied by any write. */
  readonly #sealed: RevisionCache<Map<string, string>>

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly revision: ApplicationsRevision,
  ) {
    this.#sealed = new RevisionCache(revision)
  }

  async list(principal: Principal, apiName: string): Promise<CredentialEntry[]> {
    const app = await visibleApplication(this.db, principal, apiName)
    const owner = ownerFor(app, principal)
    const rows = await this.db
      .selectFrom('application_credentials')
      .select(['scheme', 'sealed', 'updated_at'])
      .where('application_id', '=', app.id)
      .where('owner', '=', owner)
      .execute()
    const byScheme = new Map(rows.map((row) => [row.scheme, row]))
    const entries: CredentialEntry[] = []
    for (const scheme of schemesOf(app)) {
      const type = credentialTypeOf(scheme)
      if (!type) continue
      const row = byScheme.get(scheme.name)
      const problem = row ? this.box.checkKey(row.sealed) : null
      const entry: CredentialEntry = {
        scheme: scheme.name,
        type,
        scope: owner === ORG_OWNER ? 'org' : 'user',
        connected: row !== undefined && problem === null,
        updated_at: row?.updated_at ?? null,
      }
      if (problem) entry.reason = `Reconnect this credential: ${problem.message}`
      entries.push(entry)
    }
    return entries
  }

  async put(principal: Principal, apiName: string, input: CredentialInput): Promise<CredentialEntry> {
    const app = await visibleApplication(this.db, principal, apiName)
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
    const issues: InputIssue[] = []
    const wanted = FIELDS[type]
    for (const field of ['username', 'password', 'token', 'api_key'] as const) {
      const value = input[field]
      if (wanted.includes(field)) {
        if (value === undefined) issues.push({ loc: [field], msg: 'Field required', type: 'missing', input })
        else if (field !== 'password' && value === '')
          issues.push({ loc: [field], msg: 'String should have at least 1 character', type: 'string_too_short', input: value, ctx: { min_length: 1 } })
      } else if (value !== undefined) {
        issues.push({ loc: [field], msg: `Not used by the ${type} scheme "${scheme.name}"`, type: 'extra_forbidden', input: '***' })
      }
    }
    if (type === 'basic' && input.username?.includes(':'))
      issues.push({ loc: ['username'], msg: 'A Basic user name cannot contain ":"', type: 'value_error', input: input.username })
    if (issues.length > 0) throw invalidInput(...issues)

    const owner = ownerFor(app, principal)
    const secret = Object.fromEntries(wanted.map((field) => [field, input[field]]))
    const sealed = this.box.seal(JSON.stringify(secret), associatedData(app.id, owner, scheme.name))
    const now = isoTime(this.clock.now())
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('application_credentials')
        .values({ application_id: app.id, scheme: scheme.name, owner, sealed, updated_at: now, updated_by: principal.userId })
        .onConflict((oc) => oc.columns(['application_id', 'owner', 'scheme']).doUpdateSet({ sealed, updated_at: now, updated_by: principal.userId }))
        .execute()
      if (owner === ORG_OWNER)
        await writeAudit(trx, this.clock, {
          actor_id: principal.userId,
          action: 'application.credential_set',
          target_type: 'application',
          target_id: app.api_name,
          details: { scheme: scheme.name },
        })
    })
    this.revision.bump()
    return { scheme: scheme.name, type, scope: owner === ORG_OWNER ? 'org' : 'user', connected: true, updated_at: now }
  }

  async clear(principal: Principal, apiName: string, schemeName: string): Promise<void> {
    const app = await visibleApplication(this.db, principal, apiName)
    if (app.shared_security_info === 1 && principal.role !== 'admin') throw forbidden("Only an admin may clear this application's shared credential")
    if (!schemesOf(app).some((scheme) => scheme.name === schemeName)) throw notFound('Security scheme not found')
    const owner = ownerFor(app, principal)
    await this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('application_credentials')
        .where('application_id', '=', app.id)
        .where('owner', '=', owner)
        .where('scheme', '=', schemeName)
        .executeTakeFirst()
      if (owner === ORG_OWNER && deleted.numDeletedRows > 0n)
        await writeAudit(trx, this.clock, {
          actor_id: principal.userId,
          action: 'application.credential_clear',
          target_type: 'application',
          target_id: app.api_name,
          details: { scheme: schemeName },
        })
    })
  }

  /** Key rotation: every credential moved to the current key, 200 per transaction with a turn of the event loop between. */
  async reencryptAll(box: SecretBox): Promise<{ reencrypted: number; unreadable: number; keyIdsInUse: ReadonlySet<string> }> {
    let reencrypted = 0
    let unreadable = 0
    const keyIdsInUse = new Set<string>()
    const rows = await this.db.selectFrom('application_credentials').select(['application_id', 'owner', 'scheme', 'sealed']).execute()
    for (let start = 0; start < rows.length; start += 200) {
      const chunk = rows.slice(start, start + 200)
      await this.db.transaction().execute(async (trx) => {
        for (const row of chunk) {
          let sealed = row.sealed
          try {
            sealed = box.reencrypt(row.sealed, associatedData(row.application_id, row.owner, row.scheme))
          } catch (error) {
            if (!(error instanceof SecretBoxError)) throw error
            unreadable++
          }
          keyIdsInUse.add(box.keyIdOf(sealed))
          if (sealed === row.sealed) continue
          await trx
            .updateTable('application_credentials')
            .set({ sealed })
            .where('application_id', '=', row.application_id)
            .where('owner', '=', row.owner)
            .where('scheme', '=', row.scheme)
            .where('sealed', '=', row.sealed)
            .execute()
          reencrypted++
        }
      })
      await new Promise((resolve) => setImmediate(resolve))
    }
    this.revision.bump()
    return { reencrypted, unreadable, keyIdsInUse }
  }

  /**
   * The credentials for one call: the first alternative of the operation's security whose schemes are all connected.
   * `[]` (no alternatives) needs none. Otherwise a 400 naming the first scheme that is missing.
   */
  async forCall(principal: Principal, app: ApplicationsTable, security: readonly SecurityRequirement[]): Promise<OpenedCredential[]> {
    if (security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0)) return []
    const owner = ownerFor(app, principal)
    const sealedBy = await this.#sealed.get(`${app.id}\n${owner}`, async () => {
      const rows = await this.db
        .selectFrom('application_credentials')
        .select(['scheme', 'sealed'])
        .where('application_id', '=', app.id)
        .where('owner', '=', owner)
        .execute()
      return new Map(rows.map((row) => [row.scheme, row.sealed]))
    })
    const schemes = new Map(schemesOf(app).map((scheme) => [scheme.name, scheme]))
    let missing: string | null = null
    let unusable: string | null = null
    for (const requirement of security) {
      const opened: OpenedCredential[] = []
      for (const name of Object.keys(requirement)) {
        const scheme = schemes.get(name)
        const type = scheme ? credentialTypeOf(scheme) : null
        const sealed = sealedBy.get(name)
        if (!scheme || !type) {
          unusable ??= name
          break
        }
        if (sealed === undefined) {
          missing ??= name
          break
        }
        try {
          const secret = JSON.parse(this.box.open(sealed, associatedData(app.id, owner, name)))
          opened.push({ scheme, type, ...secret })
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error
          missing ??= name
          break
        }
      }
      if (opened.length === Object.keys(requirement).length) return opened
    }
    const whose = owner === ORG_OWNER ? "the organisation's" : 'your'
    if (missing !== null)
      throw badRequest(`No credential for security scheme "${missing}": connect ${whose} credential first (PUT /api/applications/${app.api_name}/credentials)`)
    throw badRequest(`The operation needs security scheme "${unusable}", which cannot hold a credential here`)
  }
}
