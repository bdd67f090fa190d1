// Push and pull of templates with the application's repository. One sync of an application at a time (the repository
// lock), the git work in the git worker, and what it found applied here in one transaction: pulled templates checked
// like a PUT and stored only over the revision that was compared, and each synced template's new sync state.
import type { Kysely, Transaction } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { writeAudit } from '../../platform/audit.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { UiTemplateRepositoriesTable, UiTemplatesTable, UiTemplateSyncStateTable } from '../../platform/db/tables/ui-templates.ts'
import { conflict, notFound } from '../../platform/errors.ts'
import { changeableApplication } from '../applications/index.ts'
import type { GitCredentials, GitRunner } from './git/git-runner.ts'
import type { SyncAnswer, SyncJob, SyncTemplateInput, TemplateOutcome } from './git/sync-job.ts'
import { DEFAULT_AUTHOR, DEFAULT_USERNAME, NO_REPOSITORY, type RepositoryLock, type RepositoryService, SecretBoxError } from './repository.ts'
import { blobId, operationFolder, templateJson } from './template-files.ts'
import { templateFromFiles } from './template-from-files.ts'
import { TEMPLATE_NOT_FOUND, type TemplatesService } from './templates.ts'

export interface SyncRequest {
  readonly direction: 'push' | 'pull'
  readonly commit_message?: string | null
  readonly force?: boolean
}

/** The spec's answer for one template. */
export interface SyncResult {
  success: boolean
  commit_sha: string | null
  message: string
  has_conflict: boolean
}

export interface TemplateSyncResult {
  template_id: string
  operation_id: string
  success: boolean
  has_conflict: boolean
  message: string
}

export interface ApplicationSyncResult extends SyncResult {
  results: TemplateSyncResult[]
}

interface Dependencies {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly templates: TemplatesService
  readonly repositories: RepositoryService
  readonly runner: GitRunner
  readonly lock: RepositoryLock
  /** Null when the URL may be called, else why not: the outbound rules are applied again at every sync. */
  readonly checkUrl: (url: string) => Promise<string | null>
}

const short = (sha: string | null) => (sha ? sha.slice(0, 12) : '')

const fieldsOf = (row: UiTemplatesTable) => ({
  type: row.type,
  is_default: row.is_default === 1,
  template_format: row.template_format,
  csp_config: row.csp_config === null ? null : (JSON.parse(row.csp_config) as Record<string, unknown>),
  ui_meta: row.ui_meta === null ? null : (JSON.parse(row.ui_meta) as Record<string, unknown>),
})

export class SyncService {
  readonly #deps: Dependencies

  constructor(deps: Dependencies) {
    this.#deps = deps
  }

  /** Push or pull one template (owner or admin): 404 unknown application or template, 409 no repository. */
  async syncTemplate(principal: Principal, apiName: string, templateId: string, request: SyncRequest): Promise<SyncResult> {
    const app = await changeableApplication(this.#deps.db, principal, apiName)
    const known = await this.#deps.db
      .selectFrom('ui_templates')
      .select('id')
      .where('id', '=', templateId)
      .where('application_id', '=', app.id)
      .executeTakeFirst()
    if (!known) throw notFound(TEMPLATE_NOT_FOUND)
    if (!(await this.#deps.repositories.row(this.#deps.db, app.id))) throw conflict(NO_REPOSITORY)
    const result = await this.#sync(principal, app, request, templateId)
    const [one] = result.results
    if (!one) return { success: false, commit_sha: null, message: `${TEMPLATE_NOT_FOUND} (deleted during the sync)`, has_conflict: false }
    return { success: one.success, commit_sha: result.commit_sha, message: one.message, has_conflict: one.has_conflict }
  }

  /** Push or pull every template of the application in one commit (owner or admin). */
  async syncApplication(principal: Principal, apiName: string, request: SyncRequest): Promise<ApplicationSyncResult> {
    const app = await changeableApplication(this.#deps.db, principal, apiName)
    if (!(await this.#deps.repositories.row(this.#deps.db, app.id))) throw conflict(NO_REPOSITORY)
    return this.#sync(principal, app, request, null)
  }

  #sync(principal: Principal, app: { id: string; api_name: string }, request: SyncRequest, only: string | null): Promise<ApplicationSyncResult> {
    return this.#deps.lock.run(app.id, async () => {
      const { db } = this.#deps
      // Read again under the lock: the configuration or the templates may have changed while this sync waited.
      const repository = await this.#deps.repositories.row(db, app.id)
      if (!repository) throw conflict(NO_REPOSITORY)
      let query = db.selectFrom('ui_templates').selectAll().where('application_id', '=', app.id)
      if (only) query = query.where('id', '=', only)
      const rows = await query.orderBy('operation_id').orderBy('id').execute()
      const states = await this.#states(rows.map((row) => row.id))
      const failed = (message: string) => this.#failed(rows, message)

      const refused = await this.#deps.checkUrl(repository.repo_url)
      if (refused) return failed(refused)
      let token: string | null
      try {
        token = await this.#deps.repositories.token(app.id)
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error
        return failed(`The repository token cannot be used: ${error.message}`)
      }
      const credentials: GitCredentials = token === null ? null : { username: repository.username ?? DEFAULT_USERNAME, password: token }
      const job = this.#job(app.api_name, repository, request, rows, states, only)
      let answer: SyncAnswer
      try {
        answer = await this.#deps.runner.run(job, credentials)
      } catch {
        return failed('The sync failed: the git worker stopped')
      }
      if (!answer.ok) return failed(answer.message)
      return this.#apply(principal, app, repository, request, rows, answer.commit, answer.outcomes)
    })
  }

  #job(
    apiName: string,
    repository: UiTemplateRepositoriesTable,
    request: SyncRequest,
    rows: readonly UiTemplatesTable[],
    states: Map<string, UiTemplateSyncStateTable>,
    only: string | null,
  ): SyncJob {
    const templates: SyncTemplateInput[] = rows.map((row) => {
      const state = states.get(row.id)
      return {
        id: row.id,
        operationId: row.operation_id,
        html: row.html,
        json: templateJson(fieldsOf(row)),
        state: state
          ? { remoteHtml: state.remote_html_blob, remoteJson: state.remote_json_blob, localHtml: state.local_html_blob, localJson: state.local_json_blob }
          : null,
      }
    })
    const single = only ? rows[0] : undefined
    const message =
      request.commit_message?.trim() ||
      (single ? `Update UI template ${single.operation_id}/${single.id} from Agentbox` : `Update the UI templates of ${apiName} from Agentbox`)
    return {
      gitdir: this.#deps.repositories.cloneDir(apiName),
      url: repository.repo_url,
      branch: repository.branch,
      root: repository.path,
      apiName,
      direction: request.direction,
      force: request.force === true,
      message,
      author: { name: repository.author_name ?? DEFAULT_AUTHOR.name, email: repository.author_email ?? DEFAULT_AUTHOR.email },
      time: Math.floor(this.#deps.clock.now() / 1000),
      templates,
    }
  }

  async #states(ids: readonly string[]): Promise<Map<string, UiTemplateSyncStateTable>> {
    if (ids.length === 0) return new Map()
    const rows = await this.#deps.db.selectFrom('ui_template_sync_state').selectAll().where('template_id', 'in', ids).execute()
    return new Map(rows.map((row) => [row.template_id, row]))
  }

  #failed(rows: readonly UiTemplatesTable[], message: string): ApplicationSyncResult {
    return {
      success: false,
      commit_sha: null,
      message,
      has_conflict: false,
      results: rows.map((row) => ({ template_id: row.id, operation_id: row.operation_id, success: false, has_conflict: false, message })),
    }
  }

  async #apply(
    principal: Principal,
    app: { id: string; api_name: string },
    repository: UiTemplateRepositoriesTable,
    request: SyncRequest,
    rows: readonly UiTemplatesTable[],
    commit: string | null,
    outcomes: readonly TemplateOutcome[],
  ): Promise<ApplicationSyncResult> {
    const byId = new Map(rows.map((row) => [row.id, row]))
    const now = isoTime(this.#deps.clock.now())
    const pushing = request.direction === 'push'
    const results = await this.#deps.db.transaction().execute(async (trx) => {
      const results: TemplateSyncResult[] = []
      for (const outcome of outcomes) {
        const row = byId.get(outcome.id)!
        const result = (success: boolean, message: string, hasConflict = false) =>
          results.push({ template_id: row.id, operation_id: row.operation_id, success, has_conflict: hasConflict, message })
        const local = { html: blobId(row.html), json: blobId(templateJson(fieldsOf(row))) }
        switch (outcome.kind) {
          case 'pushed':
            await this.#remember(trx, row.id, commit!, outcome.remote, local, now)
            result(true, `Pushed in commit ${short(commit)}`)
            break
          case 'up_to_date':
            await this.#remember(trx, row.id, commit!, outcome.remote, local, now)
            result(true, 'Already up to date')
            break
          case 'conflict':
            result(
              false,
              `${outcome.reason}: nothing was ${pushing ? 'pushed' : 'changed'}. ${
                pushing
                  ? "Pull to take the repository's version, or push with force to overwrite it."
                  : "Push to keep this version, or pull with force to take the repository's."
              }`,
              true,
            )
            break
          case 'absent':
            result(
              false,
              `The template is not in the repository (${operationFolder(repository.path, app.api_name, row.operation_id)}/${row.id}.html on ${repository.branch})`,
            )
            break
          case 'local_ahead':
            result(true, "Nothing new in the repository: this template's own changes are not pushed yet")
            break
          case 'pulled': {
            const checked = templateFromFiles(outcome.html, outcome.json)
            if ('problem' in checked) {
              result(false, `The repository's version is not a valid template: ${checked.problem}`)
              break
            }
            const stored = await this.#deps.templates.applyIfUnchanged(trx, principal, app.id, row.id, row.revision, checked.changes)
            if (!stored) {
              result(false, 'The template changed while it was pulled: try again')
              break
            }
            const after = { html: blobId(stored.html), json: blobId(templateJson(fieldsOf(stored))) }
            await this.#remember(trx, row.id, commit!, outcome.remote, after, now)
            result(true, `Pulled from commit ${short(commit)}`)
            break
          }
        }
      }
      const count = (kind: TemplateOutcome['kind']) => outcomes.filter((outcome) => outcome.kind === kind).length
      await writeAudit(trx, this.#deps.clock, {
        actor_id: principal.userId,
        action: `template.${request.direction}`,
        target_type: 'application',
        target_id: app.api_name,
        details: {
          commit,
          force: request.force === true,
          templates: rows.map((row) => row.id),
          pushed: count('pushed'),
          pulled: count('pulled'),
          conflicts: count('conflict'),
        },
      })
      return results
    })
    const success = results.every((result) => result.success)
    const conflicts = results.filter((result) => result.has_conflict).length
    const done = results.filter((result) => result.success).length
    const message =
      results.length === 0
        ? 'No templates to sync'
        : `${done} of ${results.length} template${results.length === 1 ? '' : 's'} synced${conflicts > 0 ? `, ${conflicts} with a conflict` : ''}`
    return { success, commit_sha: commit, message, has_conflict: conflicts > 0, results }
  }

  async #remember(
    trx: Transaction<Database>,
    templateId: string,
    commit: string,
    remote: { html: string; json: string },
    local: { html: string; json: string },
    now: string,
  ): Promise<void> {
    const row: UiTemplateSyncStateTable = {
      template_id: templateId,
      commit_sha: commit,
      remote_html_blob: remote.html,
      remote_json_blob: remote.json,
      local_html_blob: local.html,
      local_json_blob: local.json,
      synced_at: now,
    }
    const { template_id: _id, ...set } = row
    // A template deleted while the sync ran has no row to remember it by.
    const exists = await trx.selectFrom('ui_templates').select('id').where('id', '=', templateId).executeTakeFirst()
    if (!exists) return
    await trx
      .insertInto('ui_template_sync_state')
      .values(row)
      .onConflict((oc) => oc.column('template_id').doUpdateSet(set))
      .execute()
  }
}
