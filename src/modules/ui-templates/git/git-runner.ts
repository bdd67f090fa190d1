// The server's side of the git worker: starts it when a sync comes (and lets it go after a minute without one), hands
// it jobs, and makes the HTTP requests its git client asks for, through the guarded outbound client, adding the
// repository's credentials. The worker never holds a token and never opens a connection itself.
import { OutboundError } from '../../../platform/outbound/errors.ts'
import type { OutboundClient } from '../../../platform/outbound/outbound-client.ts'
import { WorkerClient } from '../../../platform/worker-client.ts'
import type { BridgedRequest, FromWorker, SyncAnswer, SyncJob, ToWorker } from './sync-job.ts'

export interface GitRunnerLimits {
  /** The largest answer the repository may send (a fetch's pack). Default 256 MiB. */
  readonly maxResponseBytes?: number
  /** The largest push. Default 64 MiB. */
  readonly maxRequestBytes?: number
  /** How long an idle worker is kept. Default a minute. */
  readonly idleMs?: number
}

/** HTTP Basic credentials sent with every request to the repository's origin; null: none. */
export type GitCredentials = { readonly username: string; readonly password: string } | null

export interface GitRunner {
  run(job: SyncJob, credentials: GitCredentials): Promise<SyncAnswer>
  /** Lets the worker go (shutdown). */
  close(): void
}

/** What a sync's requests are checked against and sent with. */
interface SyncTarget {
  readonly origin: string
  readonly authorization: string | null
}

const DEFAULTS = { maxResponseBytes: 256 * 1024 * 1024, maxRequestBytes: 64 * 1024 * 1024, idleMs: 60_000 }

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  let size = 0
  for await (const part of body) {
    parts.push(part)
    size += part.byteLength
  }
  // One buffer of its own, so it can be transferred to the worker without copying.
  const whole = new Uint8Array(size)
  let at = 0
  for (const part of parts) {
    whole.set(part, at)
    at += part.byteLength
  }
  return whole
}

export function createGitRunner(outbound: OutboundClient, limits: GitRunnerLimits = {}): GitRunner {
  const { maxResponseBytes, maxRequestBytes, idleMs } = { ...DEFAULTS, ...limits }
  // A worker that died is replaced by the next sync; the jobs it held fail now.
  const client: WorkerClient<ToWorker, FromWorker, SyncAnswer, SyncTarget> = new WorkerClient({
    entry: 'src/modules/ui-templates/git/git-worker.ts',
    name: 'git worker',
    closeMessage: { type: 'close' },
    idleMs,
    onMessage: (message) => {
      if (message.type === 'http') void bridge(message)
      else client.settle(message.job)?.resolve(message.answer)
    },
  })

  async function bridge(message: BridgedRequest): Promise<void> {
    const job = client.waiting(message.job)
    if (!job) return
    const answer = (reply: ToWorker, transfer: Transferable[] = []) => client.postToJob(message.job, reply, transfer)
    try {
      // The worker's client only ever asks for the repository's own URLs; anything else is refused, not sent.
      if (new URL(message.url).origin !== job.origin) throw new OutboundError('destination_not_allowed', 'origin')
      const headers: Record<string, string> = { ...message.headers, 'user-agent': 'agentbox-git' }
      if (job.authorization) headers.authorization = job.authorization
      const response = await outbound.stream(message.url, {
        method: message.method,
        headers,
        body: message.body,
        maxRequestBytes,
        maxResponseBytes,
      })
      const body = await readAll(response.body)
      answer(
        {
          type: 'http-response',
          request: message.request,
          url: message.url,
          status: response.status,
          statusText: response.status === 200 ? 'OK' : String(response.status),
          headers: Object.fromEntries(response.headers),
          body,
        },
        [body.buffer as ArrayBuffer],
      )
    } catch (error) {
      const code = error instanceof OutboundError ? error.code : 'unreachable'
      const words = error instanceof OutboundError ? `${error.message}${error.reason ? `: ${error.reason}` : ''}` : 'Destination unreachable'
      answer({ type: 'http-error', request: message.request, code, message: words })
    }
  }

  return {
    run(job, credentials) {
      const authorization = credentials ? `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` : null
      return client.submit((id) => ({ type: 'job', job: id, input: job }), [], { origin: new URL(job.url).origin, authorization })
    },
    close() {
      client.abandon(new Error('git worker closed'))
      void client.retire()
    },
  }
}
