// One sync of an application's templates with its repository, with isomorphic-git over a bare clone (no working tree:
// blobs, trees and commits are read and written as objects, so a repository of thousands of files costs a few tree
// reads). Runs in the git worker; talks HTTP through the client it is given (the server's guarded outbound client).
//
// Steps performed:
// 1. the clone under <data>/git/<api_name> is made ready: created (bare, shallow) when missing, started over when it
//    points at another URL or branch, or when fetches have left too many pack files;
// 2. fetch the branch with depth 1 (only its head: the history is never needed); an empty repository or a missing
//    branch has no head;
// 3. for each template, compare three versions: the last sync's (the stored blob ids), the repository's (the blobs at
//    <root>/<api_name>/<operation_id>/<id>.html and .json in the head), and the local one;
// 4. pull: answer the repository's version of each template the server should store; push: write the changed
//    templates' blobs, rebuild only the trees on their paths, commit on top of the head (other files stay as they
//    are) and push; a rejected push (someone pushed meanwhile) is tried once more after a new fetch.
import * as fs from 'node:fs'
import { join } from 'node:path'
import * as git from 'isomorphic-git'
import { blobId, canonicalTemplateJson, htmlFile, jsonFile, operationFolder } from '../template-files.ts'
import type { RemoteBlobs, SyncAnswer, SyncFailure, SyncJob, SyncTemplateInput, TemplateOutcome } from './sync-job.ts'

/** Past this many pack files (one per fetch) the clone is started over: every object read looks through each index. */
const MAX_PACKS = 32
const MARKER = 'agentbox-remote.json'
const REMOTE = 'origin'

/** Why the sync cannot go on, worded for the person who asked. */
export class SyncError extends Error {
  constructor(
    readonly failure: SyncFailure,
    message: string,
  ) {
    super(message)
    this.name = 'SyncError'
  }
}

/** Error codes the server's side of the HTTP bridge reports (OutboundError codes), as the worker's client throws them. */
export class BridgeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'BridgeError'
  }
}

/** A callback isomorphic-git awaits while it indexes a pack: it lets the worker's other messages through now and then. */
function yielder(): () => Promise<void> {
  let last = performance.now()
  return async () => {
    if (performance.now() - last < 8) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    last = performance.now()
  }
}

function describeFailure(error: unknown): SyncError {
  if (error instanceof SyncError) return error
  if (error instanceof BridgeError) {
    switch (error.code) {
      case 'destination_not_allowed':
        return new SyncError('not_allowed', `The repository's address is not allowed: ${error.message}`)
      case 'timeout':
        return new SyncError('timeout', 'The repository did not answer in time')
      case 'response_too_large':
      case 'request_too_large':
        return new SyncError('too_large', `The repository's data is too large to sync (${error.message})`)
      default:
        return new SyncError('unreachable', `The repository could not be reached (${error.message})`)
    }
  }
  const code = (error as { code?: string } | null)?.code
  if (code === 'HttpError') {
    const status = (error as { data?: { statusCode?: number } }).data?.statusCode
    if (status === 401 || status === 403) return new SyncError('auth', `The repository refused the credentials (HTTP ${status}): check the user name and token`)
    if (status === 404) return new SyncError('not_found', 'The repository was not found (HTTP 404): check repo_url')
    return new SyncError('unreachable', `The repository answered HTTP ${status ?? 'error'}`)
  }
  if (code === 'SmartHttpError' || code === 'EmptyServerResponseError' || code === 'ParseError')
    return new SyncError('unreachable', 'The address did not answer as a git repository: check repo_url')
  return new SyncError(
    'failed',
    `The sync failed (${error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : String(error)})`,
  )
}

const isRejection = (error: unknown) => {
  const code = (error as { code?: string } | null)?.code
  return code === 'PushRejectedError' || code === 'GitPushError'
}

interface Remote {
  readonly head: string | null
  /** The two blobs of each template found in the head. */
  readonly files: Map<string, RemoteBlobs | null>
}

export class TemplateRepository {
  readonly #job: SyncJob
  readonly #http: git.HttpClient
  readonly #cache = {}

  constructor(job: SyncJob, http: git.HttpClient) {
    this.#job = job
    this.#http = http
  }

  async sync(): Promise<SyncAnswer> {
    try {
      await this.#prepare()
      return this.#job.direction === 'pull' ? await this.#pull() : await this.#push()
    } catch (error) {
      const failure = describeFailure(error)
      // A clone in a state we did not expect is dropped: the next sync starts from a fresh fetch.
      if (failure.failure === 'failed') fs.rmSync(this.#job.gitdir, { recursive: true, force: true })
      return { ok: false, failure: failure.failure, message: failure.message }
    }
  }

  async #prepare(): Promise<void> {
    const { gitdir, url, branch } = this.#job
    const marker = join(gitdir, MARKER)
    const wanted = JSON.stringify({ url, branch })
    if (fs.existsSync(marker)) {
      const packs = fs.readdirSync(join(gitdir, 'objects', 'pack')).filter((name) => name.endsWith('.pack')).length
      if (fs.readFileSync(marker, 'utf8') === wanted && packs <= MAX_PACKS) return
    }
    fs.rmSync(gitdir, { recursive: true, force: true })
    fs.mkdirSync(gitdir, { recursive: true, mode: 0o700 })
    await git.init({ fs, gitdir, bare: true, defaultBranch: branch })
    // The URL is passed to every fetch and push instead of being configured: the clone's config holds no address and
    // never a credential (those are added to each request by the server).
    await git.setConfig({ fs, gitdir, path: `remote.${REMOTE}.fetch`, value: `+refs/heads/*:refs/remotes/${REMOTE}/*` })
    fs.mkdirSync(join(gitdir, 'objects', 'pack'), { recursive: true })
    fs.writeFileSync(marker, wanted)
  }

  /** The head of the branch after a shallow fetch, or null for an empty repository or a branch that does not exist yet. */
  async #fetch(): Promise<string | null> {
    const { gitdir, url, branch } = this.#job
    // The first fetch takes the head alone (depth 1); later ones ask only for what is new since the head the clone has,
    // without deepening: a shallow re-fetch would send every file of the new head again.
    const known = await git.resolveRef({ fs, gitdir, ref: `refs/heads/${branch}` }).catch(() => null)
    let head: string | null
    try {
      const fetched = await git.fetch({
        fs,
        http: this.#http,
        gitdir,
        url,
        remote: REMOTE,
        ref: branch,
        singleBranch: true,
        ...(known === null && { depth: 1 }),
        tags: false,
        cache: this.#cache,
        onProgress: yielder(),
      })
      head = fetched.fetchHead ?? null
    } catch (error) {
      if ((error as { code?: string }).code === 'NotFoundError') return null
      throw error
    }
    // The local branch follows what was fetched: the next fetch tells the server it has it, and gets only what is new.
    if (head) await git.writeRef({ fs, gitdir, ref: `refs/heads/${branch}`, value: head, force: true })
    return head
  }

  async #remote(): Promise<Remote> {
    const head = await this.#fetch()
    const files = new Map<string, RemoteBlobs | null>()
    const folders = new Map<string, Map<string, string> | null>()
    for (const template of this.#job.templates) {
      const folder = operationFolder(this.#job.root, this.#job.apiName, template.operationId)
      if (!folders.has(folder)) folders.set(folder, head ? await this.#folderBlobs(head, folder) : null)
      const entries = folders.get(folder)
      const html = entries?.get(htmlFile(template.id))
      const json = entries?.get(jsonFile(template.id))
      files.set(template.id, html && json ? { html, json } : null)
    }
    return { head, files }
  }

  /** The blobs of one folder of the head by file name; null when the folder does not exist. */
  async #folderBlobs(head: string, folder: string): Promise<Map<string, string> | null> {
    try {
      const { tree } = await git.readTree({ fs, gitdir: this.#job.gitdir, oid: head, filepath: folder, cache: this.#cache })
      return new Map(tree.filter((entry) => entry.type === 'blob').map((entry) => [entry.path, entry.oid]))
    } catch (error) {
      const code = (error as { code?: string }).code
      if (code === 'NotFoundError' || code === 'ObjectTypeError') return null
      throw error
    }
  }

  async #text(oid: string): Promise<string> {
    const { blob } = await git.readBlob({ fs, gitdir: this.#job.gitdir, oid, cache: this.#cache })
    return Buffer.from(blob).toString('utf8')
  }

  /** Whether the repository's files say what the local template says (the `.json` file compared for meaning). */
  async #same(template: SyncTemplateInput, remote: RemoteBlobs): Promise<boolean> {
    if (remote.html !== blobId(template.html)) return false
    if (remote.json === blobId(template.json)) return true
    return canonicalTemplateJson(await this.#text(remote.json)) === template.json
  }

  #remoteChanged(template: SyncTemplateInput, remote: RemoteBlobs | null): boolean {
    if (!template.state) return remote !== null
    return remote?.html !== template.state.remoteHtml || remote?.json !== template.state.remoteJson
  }

  #localChanged(template: SyncTemplateInput): boolean {
    if (!template.state) return true
    return blobId(template.html) !== template.state.localHtml || blobId(template.json) !== template.state.localJson
  }

  async #pull(): Promise<SyncAnswer> {
    const { head, files } = await this.#remote()
    const outcomes: TemplateOutcome[] = []
    for (const template of this.#job.templates) {
      const remote = files.get(template.id) ?? null
      if (!remote) outcomes.push({ id: template.id, kind: 'absent' })
      else if (await this.#same(template, remote)) outcomes.push({ id: template.id, kind: 'up_to_date', remote })
      else if (!this.#remoteChanged(template, remote) && !this.#job.force) outcomes.push({ id: template.id, kind: 'local_ahead' })
      else if (this.#localChanged(template) && !this.#job.force)
        outcomes.push({
          id: template.id,
          kind: 'conflict',
          reason: template.state
            ? 'The template changed here and in the repository since the last sync'
            : 'The template was never synced and the repository holds a different version',
        })
      else outcomes.push({ id: template.id, kind: 'pulled', html: await this.#text(remote.html), json: await this.#text(remote.json), remote })
    }
    return { ok: true, commit: head, outcomes }
  }

  async #push(): Promise<SyncAnswer> {
    for (let attempt = 1; ; attempt++) {
      const { head, files } = await this.#remote()
      const outcomes: TemplateOutcome[] = []
      const writes: SyncTemplateInput[] = []
      for (const template of this.#job.templates) {
        const remote = files.get(template.id) ?? null
        if (remote && (await this.#same(template, remote))) outcomes.push({ id: template.id, kind: 'up_to_date', remote })
        else if (this.#remoteChanged(template, remote) && !this.#job.force)
          outcomes.push({
            id: template.id,
            kind: 'conflict',
            reason: !remote
              ? 'The template was removed from the repository since the last sync'
              : template.state
                ? 'The template changed in the repository since the last sync'
                : 'The repository already holds a different version of the template',
          })
        else {
          writes.push(template)
          outcomes.push({ id: template.id, kind: 'pushed', remote: { html: blobId(template.html), json: blobId(template.json) } })
        }
      }
      if (writes.length === 0) return { ok: true, commit: head, outcomes }
      const commit = await this.#commit(head, writes)
      try {
        await git.push({
          fs,
          http: this.#http,
          gitdir: this.#job.gitdir,
          url: this.#job.url,
          remote: REMOTE,
          ref: `refs/heads/${this.#job.branch}`,
          remoteRef: `refs/heads/${this.#job.branch}`,
          cache: this.#cache,
        })
        return { ok: true, commit, outcomes }
      } catch (error) {
        // The local branch goes back to what the repository has, so the commit that was not taken is forgotten.
        if (head) await git.writeRef({ fs, gitdir: this.#job.gitdir, ref: `refs/heads/${this.#job.branch}`, value: head, force: true })
        else await git.deleteRef({ fs, gitdir: this.#job.gitdir, ref: `refs/heads/${this.#job.branch}` }).catch(() => {})
        if (!isRejection(error)) throw error
        if (attempt === 2) throw new SyncError('rejected', 'The repository changed again while pushing: try again')
      }
    }
  }

  /** A commit on top of `head` (or the first one) with the templates' files written, every other file as it was. */
  async #commit(head: string | null, writes: readonly SyncTemplateInput[]): Promise<string> {
    const { gitdir } = this.#job
    const root: Folder = { files: new Map(), folders: new Map() }
    for (const template of writes) {
      let folder = root
      for (const name of operationFolder(this.#job.root, this.#job.apiName, template.operationId).split('/')) {
        let next = folder.folders.get(name)
        if (!next) {
          next = { files: new Map(), folders: new Map() }
          folder.folders.set(name, next)
        }
        folder = next
      }
      folder.files.set(htmlFile(template.id), await git.writeBlob({ fs, gitdir, blob: Buffer.from(template.html) }))
      folder.files.set(jsonFile(template.id), await git.writeBlob({ fs, gitdir, blob: Buffer.from(template.json) }))
    }
    const baseTree = head ? (await git.readCommit({ fs, gitdir, oid: head, cache: this.#cache })).commit.tree : null
    const tree = await this.#writeFolder(baseTree, root)
    const { author, time, message } = this.#job
    const person = { name: author.name, email: author.email, timestamp: time, timezoneOffset: 0 }
    const commit = await git.writeCommit({
      fs,
      gitdir,
      commit: { message: message.endsWith('\n') ? message : `${message}\n`, tree, parent: head ? [head] : [], author: person, committer: person },
    })
    await git.writeRef({ fs, gitdir, ref: `refs/heads/${this.#job.branch}`, value: commit, force: true })
    return commit
  }

  /** Writes a tree: `base`'s entries with `changes` put over them (sub-trees rewritten only on the changed paths). */
  async #writeFolder(base: string | null, changes: Folder): Promise<string> {
    const { gitdir } = this.#job
    const entries = new Map<string, git.TreeEntry>()
    if (base) for (const entry of (await git.readTree({ fs, gitdir, oid: base, cache: this.#cache })).tree) entries.set(entry.path, entry)
    for (const [name, oid] of changes.files) entries.set(name, { mode: '100644', path: name, oid, type: 'blob' })
    for (const [name, folder] of changes.folders) {
      const existing = entries.get(name)
      const oid = await this.#writeFolder(existing?.type === 'tree' ? existing.oid : null, folder)
      entries.set(name, { mode: '040000', path: name, oid, type: 'tree' })
    }
    return git.writeTree({ fs, gitdir, tree: [...entries.values()] })
  }
}

interface Folder {
  readonly files: Map<string, string>
  readonly folders: Map<string, Folder>
}
