// Each application's template repository: where its templates are pushed to and pulled from. The token is a sealed
// secret of the vault's `git_repository_token` namespace (so key rotation and backups include it); the table keeps
// only what may be shown. The repository URL follows the outbound rules of every destination: a loopback, private or
// link-local address is refused unless the outbound allow list opens it.
import type { Static } from '@sinclair/typebox'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Kysely, Transaction } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { UiTemplateRepositoriesTable } from '../../platform/db/tables/ui-templates.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { invalidInput, notFound, type InputIssue } from '../../platform/errors.ts'
import { ORG_OWNER, SecretBoxError, type SecretNamespace, type SecretNamespaceDefinition } from '../../platform/secrets/index.ts'
import { changeableApplication, visibleApplication } from '../applications/index.ts'
import type { RepositoryBody } from './schema.ts'

export const NO_REPOSITORY = 'No repository is configured for this application'

/** The vault namespace of repository tokens: one per application (subject: the application's id, owner: `org`). */
export const GIT_REPOSITORY_TOKENS: SecretNamespaceDefinition = { name: 'git_repository_token', label: 'template repository tokens', types: ['bearer'] }

export const DEFAULT_BRANCH = 'main'
export const DEFAULT_PATH = 'agentbox'
export const DEFAULT_USERNAME = 'agentbox'
export const DEFAULT_AUTHOR = { name: 'Agentbox', email: 'agentbox@localhost' } as const

export type RepositoryInput = Static<typeof RepositoryBody>

export interface RepositoryView {
  application_id: string
  repo_url: string
  branch: string
  path: string
  username: string | null
  token_set: boolean
  token_problem: string | null
  author_name: string | null
  author_email: string | null
  created_at: string
  updated_at: string
}

/** Async work one at a time per key: a repository's syncs and configuration changes (keyed by application id). */
export interface RepositoryLock {
  run<T>(key: string, work: () => Promise<T>): Promise<T>
}

// git's ref-name rules (git check-ref-format) for a branch: no control characters, space, ~ ^ : ? * [ \, no "..",
// "@{", "//", no leading "-" or "/", no trailing "/", "." or ".lock", no component starting with ".".
function branchProblem(branch: string): string | null {
  if (
    [...branch].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f) ||
    /[~^:?*[\\]/.test(branch) ||
    branch.includes('..') ||
    branch.includes('@{') ||
    branch.includes('//') ||
    branch.startsWith('-') ||
    branch.startsWith('/') ||
    branch.endsWith('/') ||
    branch.endsWith('.') ||
    branch.endsWith('.lock') ||
    branch.split('/').some((part) => part.startsWith('.')) ||
    branch === '@'
  )
    return 'Not a valid git branch name'
  return null
}

/** The folder as stored: segments of letters, digits, ".", "_" and "-", joined by "/", without "." or ".." segments. */
function normalisedPath(path: string): string | null {
  const segments = path.split('/').filter((segment) => segment !== '')
  if (segments.some((segment) => segment === '.' || segment === '..' || !/^[A-Za-z0-9._-]{1,100}$/.test(segment))) return null
  return segments.join('/')
}

interface Dependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly tokens: SecretNamespace
  /** Null when the URL may be saved as a destination, else why not. */
  readonly checkUrl: (url: string) => Promise<string | null>
  readonly lock: RepositoryLock
  /** `<data>/git`: one clone per application under it. */
  readonly gitRoot: string
}

export class RepositoryService {
  readonly #deps: Dependencies

  constructor(deps: Dependencies) {
    this.#deps = deps
  }

  /** Where the application's clone is kept. */
  cloneDir(apiName: string): string {
    return join(this.#deps.gitRoot, apiName)
  }

  /** The configuration (never the token): whoever sees the application; 404 when none is configured. */
  async get(principal: Principal, apiName: string): Promise<RepositoryView> {
    const app = await visibleApplication(this.#deps.db, principal, apiName)
    const row = await this.row(this.#deps.db, app.id)
    if (!row) throw notFound(NO_REPOSITORY)
    return this.#view(apiName, row)
  }

  /** Sets the application's repository (owner or admin). A changed URL, branch or path forgets what earlier syncs saw. */
  async put(principal: Principal, apiName: string, input: RepositoryInput): Promise<RepositoryView> {
    const { db } = this.#deps
    const app = await changeableApplication(db, principal, apiName)
    const issues: InputIssue[] = []
    const urlProblem = await this.#deps.checkUrl(input.repo_url)
    if (urlProblem) issues.push({ loc: ['repo_url'], msg: urlProblem, type: 'value_error', input: input.repo_url })
    const branch = input.branch ?? DEFAULT_BRANCH
    const problem = branchProblem(branch)
    if (problem) issues.push({ loc: ['branch'], msg: problem, type: 'value_error', input: input.branch })
    const path = normalisedPath(input.path ?? DEFAULT_PATH)
    if (path === null)
      issues.push({
        loc: ['path'],
        msg: 'A folder of the repository: names of letters, digits, ".", "_" and "-" joined by "/"',
        type: 'value_error',
        input: input.path,
      })
    if (typeof input.username === 'string' && input.username.includes(':'))
      issues.push({ loc: ['username'], msg: 'A Basic user name cannot contain ":"', type: 'value_error', input: input.username })
    if (typeof input.author_email === 'string' && !/^[^\s<>@]+@[^\s<>@]+$/.test(input.author_email))
      issues.push({ loc: ['author_email'], msg: 'value is not a valid email address', type: 'value_error', input: input.author_email })
    if (typeof input.author_name === 'string' && /[<>\n]/.test(input.author_name))
      issues.push({ loc: ['author_name'], msg: 'An author name cannot contain "<", ">" or a line break', type: 'value_error', input: input.author_name })
    if (issues.length > 0) throw invalidInput(...issues)
    const repoUrl = new URL(input.repo_url).href
    const saved = await this.#deps.lock.run(app.id, () =>
      inTransaction(db, async (trx) => {
        const before = await this.row(trx, app.id)
        const now = isoTime(this.#deps.clock.now())
        const row: UiTemplateRepositoriesTable = {
          application_id: app.id,
          repo_url: repoUrl,
          branch,
          path: path!,
          username: input.username === undefined ? (before?.username ?? null) : input.username,
          author_name: input.author_name === undefined ? (before?.author_name ?? null) : input.author_name,
          author_email: input.author_email === undefined ? (before?.author_email ?? null) : input.author_email,
          created_at: before?.created_at ?? now,
          updated_at: now,
          updated_by: principal.userId,
        }
        await trx
          .insertInto('ui_template_repositories')
          .values(row)
          .onConflict((oc) => oc.column('application_id').doUpdateSet({ ...row, created_at: row.created_at }))
          .execute()
        const moved = before && (before.repo_url !== row.repo_url || before.branch !== row.branch || before.path !== row.path)
        if (moved) await this.#forgetSyncs(trx, app.id)
        const ref = { subject: app.id, owner: ORG_OWNER }
        if (input.token === null) await this.#deps.tokens.remove(trx, ref)
        else if (input.token !== undefined) await this.#deps.tokens.put(trx, ref, { type: 'bearer', token: input.token }, principal.userId)
        await writeAudit(trx, this.#deps.clock, {
          actor_id: principal.userId,
          action: before ? 'template_repository.update' : 'template_repository.create',
          target_type: 'application',
          target_id: apiName,
          details: {
            repo_url: row.repo_url,
            branch: row.branch,
            path: row.path,
            token: input.token === undefined ? 'kept' : input.token === null ? 'cleared' : 'set',
          },
        })
        return row
      }),
    )
    // After the transaction: the vault reads through its own connection, which waits for open transactions.
    return this.#view(apiName, saved)
  }

  /** Forgets the repository, its token, what syncs saw, and the clone (owner or admin). */
  async delete(principal: Principal, apiName: string): Promise<void> {
    const { db } = this.#deps
    const app = await changeableApplication(db, principal, apiName)
    await this.#deps.lock.run(app.id, async () => {
      await inTransaction(db, async (trx) => {
        if (!(await this.row(trx, app.id))) throw notFound(NO_REPOSITORY)
        await this.removeAll(trx, app.id)
        await writeAudit(trx, this.#deps.clock, {
          actor_id: principal.userId,
          action: 'template_repository.delete',
          target_type: 'application',
          target_id: apiName,
          details: {},
        })
      })
      rmSync(this.cloneDir(apiName), { recursive: true, force: true })
    })
  }

  /** The repository, its token and sync states of an application, in `trx` (its deletion or the repository's). */
  async removeAll(trx: Transaction<Database>, applicationId: string): Promise<void> {
    await this.#forgetSyncs(trx, applicationId)
    await trx.deleteFrom('ui_template_repositories').where('application_id', '=', applicationId).execute()
    await this.#deps.tokens.removeOf(trx, applicationId)
  }

  row(db: Kysely<Database>, applicationId: string): Promise<UiTemplateRepositoriesTable | undefined> {
    return db.selectFrom('ui_template_repositories').selectAll().where('application_id', '=', applicationId).executeTakeFirst()
  }

  /** The token to send, or null when none is stored; throws SecretBoxError when it cannot be opened. */
  async token(applicationId: string): Promise<string | null> {
    const credential = await this.#deps.tokens.open({ subject: applicationId, owner: ORG_OWNER })
    return credential?.type === 'bearer' ? credential.token : null
  }

  async #forgetSyncs(trx: Kysely<Database>, applicationId: string): Promise<void> {
    await trx
      .deleteFrom('ui_template_sync_state')
      .where('template_id', 'in', (eb) => eb.selectFrom('ui_templates').select('id').where('application_id', '=', applicationId))
      .execute()
  }

  async #view(apiName: string, row: UiTemplateRepositoriesTable): Promise<RepositoryView> {
    const status = (await this.#deps.tokens.status(row.application_id, ORG_OWNER)).get('')
    return {
      application_id: apiName,
      repo_url: row.repo_url,
      branch: row.branch,
      path: row.path,
      username: row.username,
      token_set: status !== undefined,
      token_problem: status?.problem ?? null,
      author_name: row.author_name,
      author_email: row.author_email,
      created_at: row.created_at,
      updated_at: row.updated_at,
    }
  }
}

export { SecretBoxError }
