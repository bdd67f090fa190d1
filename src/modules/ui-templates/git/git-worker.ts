// The git worker: runs template syncs off the request thread (isomorphic-git inflates, hashes and indexes packs in
// JavaScript: 70–170 ms at a time for a 5,000-file repository, more for larger ones). It makes no network call of its
// own: every HTTP request of its git client is posted to the server, which sends it through the guarded outbound
// client with the repository's credentials, so neither the token nor an unchecked connection ever exists here.
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git'
import { BridgeError, TemplateRepository } from './git-sync.ts'
import type { BridgedResponse, FromWorker, ToWorker } from './sync-job.ts'

declare const self: Worker

const post = (message: FromWorker) => self.postMessage(message)
const waiting = new Map<number, (response: BridgedResponse) => void>()
let nextRequest = 0

async function bodyBytes(body: GitHttpRequest['body']): Promise<Uint8Array | null> {
  if (!body) return null
  const parts: Uint8Array[] = []
  for await (const part of body) parts.push(part)
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}

async function* once(bytes: Uint8Array): AsyncIterableIterator<Uint8Array> {
  if (bytes.byteLength > 0) yield bytes
}

/** isomorphic-git's HTTP client for one job: each request goes to the server and comes back whole. */
function bridgedClient(job: number): HttpClient {
  return {
    async request({ url, method = 'GET', headers = {}, body }: GitHttpRequest): Promise<GitHttpResponse> {
      const request = ++nextRequest
      const bytes = await bodyBytes(body)
      const answer = new Promise<BridgedResponse>((resolve) => waiting.set(request, resolve))
      // Copied, not transferred: a small Buffer may share its memory with others (Node's pool).
      post({ type: 'http', job, request, url, method, headers, body: bytes })
      const response = await answer
      if (response.type === 'http-error') throw new BridgeError(response.code, response.message)
      return {
        url: response.url,
        method,
        statusCode: response.status,
        statusMessage: response.statusText,
        headers: response.headers,
        body: once(response.body),
      }
    },
  }
}

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data
  if (message.type === 'close') return process.exit(0)
  if (message.type === 'http-response' || message.type === 'http-error') {
    const resolve = waiting.get(message.request)
    waiting.delete(message.request)
    resolve?.(message)
    return
  }
  const answer = await new TemplateRepository(message.input, bridgedClient(message.job)).sync()
  post({ type: 'answer', job: message.job, answer })
  // A sync reads packs of megabytes: give the memory back before the worker waits for the next one.
  Bun.gc(true)
}
