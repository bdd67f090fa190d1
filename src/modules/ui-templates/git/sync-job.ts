// What the server and the git worker say to each other: a sync job (one application's templates, one direction), its
// answer, and the HTTP requests the worker's git client asks the server to make through the guarded outbound client.

/** What the last sync of a template left: blobs in the repository and of the local template, then. */
export interface SyncedBlobs {
  readonly remoteHtml: string
  readonly remoteJson: string
  readonly localHtml: string
  readonly localJson: string
}

export interface SyncTemplateInput {
  readonly id: string
  readonly operationId: string
  readonly html: string
  /** The `.json` file's text as the template is now (template-files.ts templateJson). */
  readonly json: string
  readonly state: SyncedBlobs | null
}

export interface SyncJob {
  /** The clone, `<data>/git/<api_name>`. */
  readonly gitdir: string
  readonly url: string
  readonly branch: string
  /** The folder templates live under (`agentbox`; '' for the root). */
  readonly root: string
  readonly apiName: string
  readonly direction: 'push' | 'pull'
  /** Overwrite on conflict: the server's version on push, the repository's on pull. */
  readonly force: boolean
  readonly message: string
  readonly author: { readonly name: string; readonly email: string }
  /** Commit time, seconds since the epoch (the server's clock). */
  readonly time: number
  readonly templates: readonly SyncTemplateInput[]
}

/** The two files of a template in the repository. */
export interface RemoteBlobs {
  readonly html: string
  readonly json: string
}

export type TemplateOutcome =
  /** push: in the new commit; the repository now holds the template's files as `remote`. */
  | { readonly id: string; readonly kind: 'pushed'; readonly remote: RemoteBlobs }
  /** Both sides hold the same template already. */
  | { readonly id: string; readonly kind: 'up_to_date'; readonly remote: RemoteBlobs }
  | { readonly id: string; readonly kind: 'conflict'; readonly reason: string }
  /** pull: the repository has no such template. */
  | { readonly id: string; readonly kind: 'absent' }
  /** pull: nothing changed in the repository since the last sync; the template's own changes are not pushed yet. */
  | { readonly id: string; readonly kind: 'local_ahead' }
  /** pull: the repository's version, to validate and store. */
  | { readonly id: string; readonly kind: 'pulled'; readonly html: string; readonly json: string; readonly remote: RemoteBlobs }

/** Why a whole sync failed, for the message and for tests. */
export type SyncFailure = 'unreachable' | 'timeout' | 'not_allowed' | 'auth' | 'not_found' | 'rejected' | 'too_large' | 'failed'

export type SyncAnswer =
  | { readonly ok: true; readonly commit: string | null; readonly outcomes: readonly TemplateOutcome[] }
  | { readonly ok: false; readonly failure: SyncFailure; readonly message: string }

/** A request of the worker's git client, made by the server. */
export interface BridgedRequest {
  readonly type: 'http'
  readonly job: number
  readonly request: number
  readonly url: string
  readonly method: string
  readonly headers: Record<string, string>
  readonly body: Uint8Array | null
}

export type BridgedResponse =
  | {
      readonly type: 'http-response'
      readonly request: number
      readonly url: string
      readonly status: number
      readonly statusText: string
      readonly headers: Record<string, string>
      readonly body: Uint8Array
    }
  | { readonly type: 'http-error'; readonly request: number; readonly code: string; readonly message: string }

export type ToWorker = { readonly type: 'job'; readonly job: number; readonly input: SyncJob } | BridgedResponse | { readonly type: 'close' }
export type FromWorker = BridgedRequest | { readonly type: 'answer'; readonly job: number; readonly answer: SyncAnswer }
