// The streaming mode of the guarded client (src/platform/outbound/stream-fetch.ts) on 127.0.0.1 servers: Server-Sent
// Events arrive as they are sent, a body past its limit fails loudly (never a silent cut), uploads stream, redirects are
// re-checked before connecting, and the headers / idle / total time-outs and the caller's abort end the call. Timers are
// injected and fired by hand: no test waits on the clock.
import { afterAll, describe, expect, test } from 'bun:test'
import type { Server } from 'bun'
import { AllowList, parseAllowList } from '../../src/platform/outbound/allow-list.ts'
import { OutboundError, type OutboundErrorCode } from '../../src/platform/outbound/errors.ts'
import { guardedFetch } from '../../src/platform/outbound/fetch-adapter.ts'
import type { FetchFunction, StartTimer } from '../../src/platform/outbound/safe-fetch.ts'
import { createSafeStreamFetch, STREAM_LIMITS } from '../../src/platform/outbound/stream-fetch.ts'

const servers: Server<undefined>[] = []
afterAll(() => {
  for (const server of servers) server.stop(true)
})

function serve(handler: (request: Request) => Response | Promise<Response>) {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler })
  servers.push(server)
  return { server, origin: `http://127.0.0.1:${server.port}` }
}

/**
 * A body the test feeds by hand: each `send` is one chunk on the wire; `end` closes it. Bun's server sends the response
 * headers with the first chunk, so a response body starts with `first` already queued.
 */
function pushedBody(first = ': open\n\n') {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c
      if (first) c.enqueue(new TextEncoder().encode(first))
    },
  })
  return {
    stream,
    send: (text: string | Uint8Array) => controller.enqueue(typeof text === 'string' ? new TextEncoder().encode(text) : text),
    end: () => controller.close(),
  }
}

/** Timers the test fires itself; `live` holds the ones armed and not yet cancelled. */
function manualTimers() {
  const live = new Map<number, { ms: number; fire: () => void }>()
  let next = 0
  const start: StartTimer = (ms, fire) => {
    const id = next++
    live.set(id, { ms, fire })
    return () => live.delete(id)
  }
  return {
    start,
    live,
    armed: () => [...live.values()].map((t) => t.ms).sort((a, b) => a - b),
    fire(ms: number) {
      for (const [id, timer] of live)
        if (timer.ms === ms) {
          live.delete(id)
          timer.fire()
          return
        }
      throw new Error(`no ${ms} ms timer armed`)
    },
  }
}

function spyFetch() {
  const calls: string[] = []
  const spy: FetchFunction = (url, init) => {
    calls.push(url)
    return fetch(url, init)
  }
  return Object.assign(spy, { calls })
}

function client(options: { allowed?: string; timers?: ReturnType<typeof manualTimers> } = {}) {
  const fetchSpy = spyFetch()
  const timers = options.timers ?? manualTimers()
  const stream = createSafeStreamFetch({
    allow: AllowList.of(parseAllowList(options.allowed ?? '127.0.0.1')),
    resolve: async () => {
      throw Object.assign(new Error('no DNS in tests'), { code: 'ENOTFOUND' })
    },
    fetch: fetchSpy,
    startTimer: timers.start,
  })
  return { stream, fetchSpy, timers }
}

async function rejection(promise: Promise<unknown>, code: OutboundErrorCode): Promise<OutboundError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(OutboundError)
  expect((error as OutboundError).code).toBe(code)
  return error as OutboundError
}

const decoder = new TextDecoder()

describe('Server-Sent Events pass through as they are sent', () => {
  test('each event is read before the server has sent the next; the stream ends when the server ends it', async () => {
    const body = pushedBody()
    const { origin } = serve(() => new Response(body.stream, { headers: { 'content-type': 'text/event-stream' } }))
    const { stream, timers } = client()
    const response = await stream(`${origin}/events`, { headers: { accept: 'text/event-stream' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reader = response.body.getReader()
    expect(decoder.decode((await reader.read()).value)).toBe(': open\n\n')
    for (const n of [1, 2, 3]) {
      // The server sends event n only now: reading it proves nothing waited for the whole body.
      body.send(`event: delta\ndata: {"n":${n}}\n\n`)
      const { value } = await reader.read()
      expect(decoder.decode(value)).toBe(`event: delta\ndata: {"n":${n}}\n\n`)
    }
    body.end()
    expect((await reader.read()).done).toBe(true)
    // Ended: nothing of the call is left armed.
    expect(timers.live.size).toBe(0)
  })

  test('the fetch adapter hands a library a Response whose body streams the same way', async () => {
    const body = pushedBody()
    const { origin } = serve(() => new Response(body.stream, { headers: { 'content-type': 'text/event-stream' } }))
    const { stream } = client()
    const response = await guardedFetch(stream)(`${origin}/sse`, { method: 'POST', body: '{"stream":true}', headers: { 'content-type': 'application/json' } })
    const reader = response.body!.getReader()
    await reader.read()
    body.send('data: one\n\n')
    expect(decoder.decode((await reader.read()).value)).toBe('data: one\n\n')
    body.send('data: two\n\n')
    body.end()
    expect(decoder.decode((await reader.read()).value)).toBe('data: two\n\n')
    expect((await reader.read()).done).toBe(true)
  })
})

describe('a body past its limit fails loudly', () => {
  const chunk = new Uint8Array(64 * 1024).fill(97)

  test('mid-stream: the reader gets at most the limit, then response_too_large, never a quiet end', async () => {
    const { origin } = serve(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              for (let i = 0; i < 4; i++) controller.enqueue(chunk)
              controller.close()
            },
          }),
        ),
    )
    const { stream, timers } = client()
    const response = await stream(`${origin}/big`, { maxResponseBytes: 100 * 1024 })
    const reader = response.body.getReader()
    let received = 0
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return null
        received += value.byteLength
      }
    })().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(OutboundError)
    expect(failure).toMatchObject({ code: 'response_too_large', reason: 'stream', message: 'Response body too large' })
    expect(received).toBeLessThanOrEqual(100 * 1024)
    expect(timers.live.size).toBe(0)
  })

  test('announced by Content-Length: refused before any of it is read', async () => {
    const { origin } = serve(() => new Response(new Uint8Array(300 * 1024)))
    const { stream } = client()
    expect((await rejection(stream(`${origin}/announced`, { maxResponseBytes: 100 * 1024 }), 'response_too_large')).reason).toBe('content_length')
  })

  test('exactly the limit is fine', async () => {
    const { origin } = serve(() => new Response(new Uint8Array(1000).fill(1)))
    const { stream } = client()
    const response = await stream(`${origin}/exact`, { maxResponseBytes: 1000 })
    expect((await new Response(response.body).arrayBuffer()).byteLength).toBe(1000)
  })
})

describe('streamed uploads', () => {
  test('a ReadableStream body arrives whole, in order', async () => {
    const { origin } = serve(async (request) => {
      const bytes = new Uint8Array(await request.arrayBuffer())
      return Response.json({ size: bytes.byteLength, head: decoder.decode(bytes.subarray(0, 5)), method: request.method })
    })
    const { stream } = client()
    const upload = pushedBody('')
    const pending = stream(`${origin}/upload`, { method: 'POST', body: upload.stream, maxRequestBytes: 10 * 1024 * 1024 })
    upload.send('hello')
    for (let i = 0; i < 16; i++) upload.send(new Uint8Array(128 * 1024))
    upload.end()
    const response = await pending
    expect(await new Response(response.body).json()).toEqual({ size: 5 + 16 * 128 * 1024, head: 'hello', method: 'POST' })
  })

  test('an upload past maxRequestBytes fails with request_too_large', async () => {
    const { origin } = serve(async (request) => Response.json({ size: (await request.arrayBuffer()).byteLength }))
    const { stream } = client()
    const upload = pushedBody('')
    const pending = stream(`${origin}/upload`, { method: 'PUT', body: upload.stream, maxRequestBytes: 1024 })
    upload.send(new Uint8Array(1000))
    upload.send(new Uint8Array(1000))
    upload.end()
    await rejection(pending, 'request_too_large')
  })

  test('bytes over the limit are refused before sending', async () => {
    const { stream, fetchSpy } = client()
    await rejection(stream('http://127.0.0.1:9/x', { method: 'POST', body: new Uint8Array(2048), maxRequestBytes: 1024 }), 'request_too_large')
    expect(fetchSpy.calls).toHaveLength(0)
  })

  test('a 307 cannot replay a streamed body: a clear failure, not a request without its body', async () => {
    const target = serve(async (request) => Response.json({ size: (await request.arrayBuffer()).byteLength }))
    const { origin } = serve(() => new Response(null, { status: 307, headers: { location: `${target.origin}/there` } }))
    const { stream } = client()
    const upload = pushedBody('')
    upload.send('payload')
    upload.end()
    expect((await rejection(stream(`${origin}/here`, { method: 'POST', body: upload.stream }), 'unreachable')).reason).toBe('redirect_needs_streamed_body')
  })
})

describe('redirects and the address policy', () => {
  test.each(['http://169.254.169.254/latest/meta-data/', 'http://127.0.0.2/', 'http://10.0.0.1/', 'http://[::1]/'])(
    'a redirect to %s is refused before connecting to it',
    async (location) => {
      const { origin } = serve(() => new Response(null, { status: 302, headers: { location } }))
      const { stream, fetchSpy } = client({ allowed: '127.0.0.1' })
      await rejection(stream(`${origin}/start`), 'destination_not_allowed')
      // Only the first hop was ever sent.
      expect(fetchSpy.calls).toEqual([`${origin}/start`])
    },
  )

  test('a forbidden first address is refused without any connection', async () => {
    const { stream, fetchSpy } = client({ allowed: '' })
    await rejection(stream('http://127.0.0.1:1/'), 'destination_not_allowed')
    expect(fetchSpy.calls).toHaveLength(0)
  })

  test('credentials are dropped when a redirect leaves the origin, kept on the same origin', async () => {
    const seen: (string | null)[] = []
    const final = serve((request) => {
      seen.push(request.headers.get('authorization'))
      return new Response('done')
    })
    const hop = serve((request) => {
      seen.push(request.headers.get('authorization'))
      const url = new URL(request.url)
      return new Response(null, { status: 302, headers: { location: url.pathname === '/a' ? '/b' : `${final.origin}/c` } })
    })
    const { stream } = client()
    const response = await stream(`${hop.origin}/a`, { headers: { authorization: 'Bearer secret' } })
    expect(await new Response(response.body).text()).toBe('done')
    expect(response.redirects).toBe(2)
    expect(seen).toEqual(['Bearer secret', 'Bearer secret', null])
  })
})

describe('time-outs and aborts', () => {
  test('the headers time-out ends a call whose server never answers', async () => {
    const { origin } = serve(() => new Promise<Response>(() => {}))
    const { stream, timers } = client()
    const pending = stream(`${origin}/slow`, { headersTimeoutMs: 1234 })
    await waitFor(() => timers.armed().includes(1234))
    // Arrived at the server or not, the call is waiting on headers; fire that time-out.
    timers.fire(1234)
    expect((await rejection(pending, 'timeout')).reason).toBe('headers')
    expect(timers.live.size).toBe(0)
  })

  test('the idle time-out ends a stream that goes silent, and is armed only while the reader waits', async () => {
    const body = pushedBody()
    const { origin } = serve(() => new Response(body.stream))
    const { stream, timers } = client()
    const response = await stream(`${origin}/quiet`, { idleTimeoutMs: 777, totalTimeoutMs: 999_000 })
    // Headers in: only the total time-out is armed until someone reads.
    expect(timers.armed()).toEqual([999_000])
    const reader = response.body.getReader()
    expect(decoder.decode((await reader.read()).value)).toBe(': open\n\n')
    expect(timers.armed()).toEqual([999_000])
    const next = reader.read()
    await waitFor(() => timers.armed().includes(777))
    timers.fire(777)
    const error = await next.then(
      () => null,
      (caught: unknown) => caught,
    )
    expect(error).toMatchObject({ code: 'timeout', reason: 'idle' })
    expect(timers.live.size).toBe(0)
  })

  test('the total time-out ends even a stream that keeps talking', async () => {
    const body = pushedBody()
    const { origin } = serve(() => new Response(body.stream))
    const { stream, timers } = client()
    const response = await stream(`${origin}/chatty`, { totalTimeoutMs: 4321 })
    const reader = response.body.getReader()
    body.send('a')
    await reader.read()
    timers.fire(4321)
    body.send('b')
    const error = await reader.read().then(
      () => null,
      (caught: unknown) => caught,
    )
    expect(error).toMatchObject({ code: 'timeout', reason: 'total' })
  })

  test("the caller's abort ends the stream with the caller's reason", async () => {
    const body = pushedBody()
    const { origin } = serve(() => new Response(body.stream))
    const { stream, timers } = client()
    const caller = new AbortController()
    const response = await stream(`${origin}/abort`, { signal: caller.signal })
    const reader = response.body.getReader()
    await reader.read()
    const next = reader.read()
    caller.abort(new Error('user went away'))
    expect(
      await next.then(
        () => null,
        (caught: unknown) => (caught as Error).message,
      ),
    ).toBe('user went away')
    expect(timers.live.size).toBe(0)
  })

  test('cancelling the body releases the call', async () => {
    const body = pushedBody()
    const { origin } = serve(() => new Response(body.stream))
    const { stream, timers } = client()
    const response = await stream(`${origin}/cancel`)
    expect(timers.live.size).toBe(1)
    await response.body.cancel()
    expect(timers.live.size).toBe(0)
  })

  test('the defaults suit long streams', () => {
    expect(STREAM_LIMITS).toEqual({ headersTimeoutMs: 30_000, idleTimeoutMs: 60_000, totalTimeoutMs: 600_000 })
  })
})

/** Waits for a condition another task makes true (a timer being armed), by turns of the event loop, not by time. */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 10_000; turn++) {
    if (condition()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error('condition never became true')
}
