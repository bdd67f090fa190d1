// The openai and anthropic providers against fake servers on 127.0.0.1: wire format, errors, retries, time-outs, secrets,
// and the explicit retryable/status an error carries (which workflow llm steps retry on).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ProviderError, type ChatProvider } from '../../src/llm/provider.ts'
import { makeProvider } from './helpers.ts'
import type { WorkflowDefinition } from '../../src/modules/workflows/definition/types.ts'
import { WorkflowExecutor, type EngineHost } from '../../src/modules/workflows/engine/executor.ts'
import type { StepTrace } from '../../src/modules/workflows/engine/trace.ts'
import { startFakeServer, type FakeServer } from './fake-servers.ts'

const KEY = 'sk-test-very-secret-key-0123456789'
const ask = (provider: ChatProvider, extra: Partial<Parameters<ChatProvider['complete']>[0]> = {}) =>
  provider.complete({ model: 'test-model', system: null, messages: [{ role: 'user', content: 'What is due today?' }], ...extra })

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError)
    return error as ProviderError
  }
  throw new Error('expected the call to fail')
}

// Built as the server builds them: ModelProviders over a guarded outbound client that allows only the base URL.
const CASES = [
  { format: 'openai' as const, make: (url: string, key: string | null = KEY, timeoutMs = 2_000) => makeProvider('openai', url, key, timeoutMs) },
  { format: 'anthropic' as const, make: (url: string, key: string | null = KEY, timeoutMs = 2_000) => makeProvider('anthropic', url, key, timeoutMs) },
]

for (const { format, make } of CASES) {
  describe(`${format} provider`, () => {
    let fake: FakeServer
    beforeAll(() => {
      fake = startFakeServer(format)
    })
    afterAll(() => fake.close())

    test('sends the model, the system prompt and the messages in the wire format, with the API key, and returns the text', async () => {
      fake.behave({ reply: 'Three meetings.' })
      const before = fake.requests.length
      const reply = await ask(make(fake.url), {
        system: 'You are terse.',
        messages: [
          { role: 'user', content: 'earlier' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'What is due today?' },
        ],
      })
      expect(reply).toMatchObject({ text: 'Three meetings.', tool_calls: [], usage: { input_tokens: 3, output_tokens: 2 }, stop_reason: 'end_turn' })
      const request = fake.requests[before]!
      expect(request.method).toBe('POST')
      if (format === 'openai') {
        expect(request.path).toBe('/v1/chat/completions')
        expect(request.headers.authorization).toBe(`Bearer ${KEY}`)
        expect(request.body).toMatchObject({
          model: 'test-model',
          messages: [
            { role: 'system', content: 'You are terse.' },
            { role: 'user', content: 'earlier' },
            { role: 'assistant', content: 'ok' },
            { role: 'user', content: 'What is due today?' },
          ],
        })
      } else {
        expect(request.path).toBe('/v1/messages')
        // The client library decides the auth header (1.x sends the key as a bearer token; older ones used x-api-key).
        expect(request.headers['x-api-key'] === KEY || request.headers.authorization === `Bearer ${KEY}`).toBe(true)
        expect(request.headers['anthropic-version']).toBeString()
        expect(request.body).toMatchObject({
          model: 'test-model',
          system: 'You are terse.',
          max_tokens: expect.any(Number),
          messages: [
            { role: 'user', content: 'earlier' },
            { role: 'assistant', content: 'ok' },
            { role: 'user', content: 'What is due today?' },
          ],
        })
      }
    })

    test('without a system prompt none is sent', async () => {
      fake.behave({ reply: 'fine' })
      const before = fake.requests.length
      await ask(make(fake.url))
      const body = fake.requests[before]!.body
      if (format === 'openai') expect(body.messages.map((m: any) => m.role)).toEqual(['user'])
      else expect(body.system).toBeUndefined()
    })

    test("a 4xx answer becomes a readable error with the server's own message, not retried, and no API key", async () => {
      fake.behave({ status: 401, message: `Incorrect API key provided: ${KEY}`, type: 'authentication_error' })
      const before = fake.requests.length
      const error = await failure(ask(make(fake.url)))
      expect(error.message).toBe(`The ${format} provider at ${fake.url} answered HTTP 401: Incorrect API key provided: [redacted]`)
      expect(error.message).not.toContain(KEY)
      expect(error.stack ?? '').not.toContain(KEY)
      expect(fake.requests.length - before).toBe(1)
      expect(error).toMatchObject({ retryable: false, status: 401 })
    })

    test('an unknown model (404) names the problem', async () => {
      fake.behave({ status: 404, message: 'model "nope" not found', type: 'not_found_error' })
      expect((await failure(ask(make(fake.url), { model: 'nope' }))).message).toBe(
        `The ${format} provider at ${fake.url} answered HTTP 404: model "nope" not found`,
      )
    })

    test('a 5xx answer is retried by the client library, then fails the call readably', async () => {
      fake.behave({ status: 503, message: 'upstream overloaded', type: 'overloaded_error', headers: { 'retry-after-ms': '1' } })
      const before = fake.requests.length
      const error = await failure(ask(make(fake.url)))
      expect(error.message).toBe(`The ${format} provider at ${fake.url} answered HTTP 503: upstream overloaded`)
      expect(fake.requests.length - before).toBe(3)
    })

    test('a 5xx followed by a good answer succeeds', async () => {
      fake.behave({ status: 500, message: 'blip', headers: { 'retry-after-ms': '1' } }, { reply: 'recovered' })
      expect(await ask(make(fake.url))).toMatchObject({ text: 'recovered' })
    })

    test('an error without a JSON body still reads as a sentence', async () => {
      fake.behave({ raw: () => new Response('gateway exploded', { status: 502, headers: { 'x-should-retry': 'false' } }) })
      const error = await failure(ask(make(fake.url)))
      expect(error.message).toStartWith(`The ${format} provider at ${fake.url} answered HTTP 502:`)
      expect(error.message).toContain('gateway exploded')
    })

    test('a server that never answers times out within the configured deadline, retries included', async () => {
      fake.behave({ hang: true })
      const started = performance.now()
      const error = await failure(ask(make(fake.url, KEY, 300)))
      const elapsed = performance.now() - started
      expect(error.message).toBe(`The ${format} provider at ${fake.url} did not answer within 0.3 s`)
      expect(elapsed).toBeLessThan(1_500)
      fake.release()
    })

    test('a success without any text is an error, not an empty reply', async () => {
      fake.behave({ reply: '', usage: { input: 1, output: 0 } })
      const error = await failure(ask(make(fake.url)))
      expect(error.message).toBe(`The ${format} provider at ${fake.url} returned no text`)
      expect(error).toMatchObject({ retryable: false, status: undefined })
    })

    test('an unreachable server is a readable connection error', async () => {
      const closed = startFakeServer(format)
      const url = closed.url
      await closed.close()
      const error = await failure(ask(make(url, KEY, 2_000)))
      expect(error.message).toStartWith(`Could not reach the ${format} provider at ${url}:`)
      expect(error.retryable).toBe(true)
      expect(error.status).toBeUndefined()
    })

    test('a shutdown abort ends the call at once with a sentence saying why', async () => {
      fake.behave({ hang: true })
      const controller = new AbortController()
      const pending = failure(ask(make(fake.url, KEY, 10_000), { signal: controller.signal }))
      await Bun.sleep(50)
      controller.abort()
      const error = await pending
      expect(error.message).toBe('Interrupted: the server is shutting down')
      expect(error.retryable).toBe(false)
      fake.release()
    })

    describe('retryable and status are set where the error is made', () => {
      // The client library retries 408, 429 and 5xx itself first (retry-after-ms keeps that quick); what reaches the
      // caller still says whether another try later is worthwhile.
      test('a 429 is retryable, with its status', async () => {
        fake.behave({ status: 429, message: 'rate limited', type: 'rate_limit_error', headers: { 'retry-after-ms': '1' } })
        const error = await failure(ask(make(fake.url)))
        expect(error.message).toBe(`The ${format} provider at ${fake.url} answered HTTP 429: rate limited`)
        expect(error).toMatchObject({ retryable: true, status: 429, provider: format })
      })

      test('a 500 is retryable, with its status', async () => {
        fake.behave({ status: 500, message: 'internal error', type: 'api_error', headers: { 'retry-after-ms': '1' } })
        const error = await failure(ask(make(fake.url)))
        expect(error.message).toBe(`The ${format} provider at ${fake.url} answered HTTP 500: internal error`)
        expect(error).toMatchObject({ retryable: true, status: 500 })
      })

      test('a 408 is retryable', async () => {
        fake.behave({ status: 408, message: 'request timeout', headers: { 'retry-after-ms': '1' } })
        expect(await failure(ask(make(fake.url)))).toMatchObject({ retryable: true, status: 408 })
      })

      test('a 400 is not retryable, with its status, and is sent once', async () => {
        fake.behave({ status: 400, message: 'messages: field required', type: 'invalid_request_error' })
        const before = fake.requests.length
        const error = await failure(ask(make(fake.url)))
        expect(error.message).toBe(`The ${format} provider at ${fake.url} answered HTTP 400: messages: field required`)
        expect(error).toMatchObject({ retryable: false, status: 400 })
        expect(fake.requests.length - before).toBe(1)
      })

      test('a time-out is retryable and has no status', async () => {
        fake.behave({ hang: true })
        const error = await failure(ask(make(fake.url, KEY, 300)))
        expect(error.message).toBe(`The ${format} provider at ${fake.url} did not answer within 0.3 s`)
        expect(error.retryable).toBe(true)
        expect(error.status).toBeUndefined()
        fake.release()
      })

      test('the text no longer decides: a 400 whose message reads like a time-out is still not retryable', async () => {
        fake.behave({ status: 400, message: 'upstream timed out; did not answer', type: 'invalid_request_error' })
        expect(await failure(ask(make(fake.url)))).toMatchObject({ retryable: false, status: 400 })
      })
    })

    test('works without an API key (local servers), sending a placeholder instead of reading the environment', async () => {
      process.env.OPENAI_API_KEY = 'from-env-must-not-be-used'
      process.env.ANTHROPIC_API_KEY = 'from-env-must-not-be-used'
      try {
        fake.behave({ reply: 'local' })
        const before = fake.requests.length
        expect(await ask(make(fake.url, null))).toMatchObject({ text: 'local' })
        expect(JSON.stringify(fake.requests[before]!.headers)).not.toContain('from-env')
      } finally {
        delete process.env.OPENAI_API_KEY
        delete process.env.ANTHROPIC_API_KEY
      }
    })
  })
}

describe('workflow llm steps retry on ProviderError.retryable, not on its text', () => {
  let fake: FakeServer
  beforeAll(() => {
    fake = startFakeServer('openai')
  })
  afterAll(() => fake.close())

  const flow: WorkflowDefinition = {
    nodes: [
      { id: 'ask', type: 'agentbox.llm', params: { prompt: 'hello' }, retry: { max_tries: 3, wait_ms: 0 } },
      { id: 'out', type: 'agentbox.output', params: { value: '{{ $json.text }}' } },
    ] as WorkflowDefinition['nodes'],
    connections: [{ from: 'ask', to: 'out' }],
  }

  async function runFlow() {
    const provider = makeProvider('openai', fake.url, KEY, 2_000)
    const traces: StepTrace[] = []
    const host: EngineHost = {
      clock: { now: () => Date.now() },
      stepData: null,
      isCancelled: () => false,
      onTrace: (t) => void traces.push(t),
      sleep: async () => {},
      callLlm: async (call) => ({
        text: (await provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: call.prompt }] })).text,
        provider: 'openai',
        model: 'm',
      }),
    }
    const info = {
      id: 'r1',
      input: {},
      started_at: new Date().toISOString(),
      starter: 'u1',
      dry_run: false,
      workflow: { id: 'w', name: 'w', version: 1, agent: 'a' },
    }
    const outcome = await new WorkflowExecutor(flow, info, host).start()
    return { outcome: outcome as any, attempts: traces.find((t) => t.node_id === 'ask')!.attempts }
  }

  test('a 429 that outlasts the client library is tried again by the step, which then succeeds', async () => {
    // The client library sends each call three times (two retries); the step's second try gets the reply.
    const limited = { status: 429, message: 'rate limited', type: 'rate_limit_error', headers: { 'retry-after-ms': '1' } }
    fake.behave(limited, limited, limited, { reply: 'finally' })
    const { outcome, attempts } = await runFlow()
    expect(outcome.status).toBe('succeeded')
    expect(outcome.result).toBe('finally')
    expect(attempts).toEqual([
      { n: 1, error: { code: 'llm_error', message: `The openai provider at ${fake.url} answered HTTP 429: rate limited`, retryable: true } },
    ])
  })

  test('a 400 fails the step at once, whatever its message says', async () => {
    fake.behave({ status: 400, message: 'the upstream timed out', type: 'invalid_request_error' })
    const before = fake.requests.length
    const { outcome, attempts } = await runFlow()
    expect(outcome.status).toBe('failed')
    expect(outcome.error).toMatchObject({ code: 'llm_error', node_id: 'ask' })
    expect(attempts).toHaveLength(1)
    expect(attempts[0]!.error.retryable).toBe(false)
    expect(fake.requests.length - before).toBe(1)
  })
})
