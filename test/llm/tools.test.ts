// Tools and streaming against fake servers on 127.0.0.1 speaking the real wire formats (OpenAI chat completions with
// `tools` and streamed chunks; Anthropic messages with `tool_use` and streamed events): tool definitions and results
// in each provider's native shape, tool calls assembled from many deltas (parallel ones too), usage and stop reasons,
// malformed arguments reported as such, errors mid-stream and silence as readable ProviderErrors.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { OpenAIProvider } from '../../src/llm/openai.ts'
import { type ChatEvent, type ChatMessage, type ChatProvider, ProviderError, type ToolDefinition } from '../../src/llm/provider.ts'
import { modelFetch } from '../../src/llm/registry.ts'
import { guardedFetch } from '../../src/platform/outbound/fetch-adapter.ts'
import { startFakeServer, type FakeServer } from './fake-servers.ts'
import { guardedOutbound, llmConfig, makeProvider } from './helpers.ts'

const WEATHER: ToolDefinition = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}
const TIME: ToolDefinition = { name: 'get_time', input_schema: { type: 'object', properties: {} } }

async function events(provider: ChatProvider, request: Partial<Parameters<ChatProvider['stream']>[0]> = {}): Promise<ChatEvent[]> {
  const out: ChatEvent[] = []
  for await (const event of provider.stream({ model: 'm', system: null, messages: [{ role: 'user', content: 'hi' }], ...request })) out.push(event)
  return out
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(ProviderError)
  return error as ProviderError
}

for (const format of ['openai', 'anthropic'] as const) {
  describe(`${format}: tools and streaming`, () => {
    let fake: FakeServer
    let provider: ChatProvider
    beforeAll(() => {
      fake = startFakeServer(format)
      provider = makeProvider(format, fake.url)
    })
    afterAll(() => fake.close())

    test('a streamed text reply arrives as several deltas, then usage, then the stop reason', async () => {
      fake.behave({ reply: 'It is sunny in Lyon today.', pieces: 4, usage: { input: 11, output: 7 } })
      const seen = await events(provider)
      const deltas = seen.filter((e) => e.type === 'text_delta')
      expect(deltas.length).toBe(4)
      expect(deltas.map((e) => (e as { text: string }).text).join('')).toBe('It is sunny in Lyon today.')
      expect(seen.slice(-2)).toEqual([
        { type: 'usage', usage: { input_tokens: 11, output_tokens: 7 } },
        { type: 'stop', reason: 'end_turn' },
      ])
      const body = fake.requests.at(-1)!.body
      expect(body.stream).toBe(true)
      if (format === 'openai') expect(body.stream_options).toEqual({ include_usage: true })
    })

    test('tool definitions are sent in the native shape', async () => {
      fake.behave({ reply: 'ok' })
      await provider.complete({ model: 'm', system: 'Be brief.', messages: [{ role: 'user', content: 'weather?' }], tools: [WEATHER, TIME] })
      const body = fake.requests.at(-1)!.body
      if (format === 'openai') {
        expect(body.tools).toEqual([
          { type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: WEATHER.input_schema } },
          { type: 'function', function: { name: 'get_time', parameters: TIME.input_schema } },
        ])
        expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' })
      } else {
        expect(body.tools).toEqual([
          { name: 'get_weather', description: 'The weather in a city', input_schema: WEATHER.input_schema },
          { name: 'get_time', input_schema: TIME.input_schema },
        ])
        expect(body.system).toBe('Be brief.')
      }
    })

    test('a tool call whose arguments come in many deltas is assembled and parsed', async () => {
      const args = JSON.stringify({ city: 'Lyon', units: 'metric', days: [1, 2, 3] })
      fake.behave({ toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: args, pieces: 12 }] })
      const seen = await events(provider, { tools: [WEATHER] })
      const deltas = seen.filter((e) => e.type === 'tool_call_delta')
      expect(deltas.length).toBe(12)
      expect(deltas.map((e) => (e as { arguments: string }).arguments).join('')).toBe(args)
      expect(seen.find((e) => e.type === 'tool_call_start')).toMatchObject({ id: 'call_a', name: 'get_weather' })
      expect(seen.find((e) => e.type === 'tool_call_end')).toMatchObject({
        call: { id: 'call_a', name: 'get_weather', arguments: { city: 'Lyon', units: 'metric', days: [1, 2, 3] } },
      })
      expect(seen.at(-1)).toEqual({ type: 'stop', reason: 'tool_use' })
    })

    test('parallel tool calls come out as separate calls, in order', async () => {
      fake.behave({
        interleave: format === 'openai',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', pieces: 4 },
          { id: 'call_2', name: 'get_time', arguments: '{"zone":"Europe/Oslo"}', pieces: 4 },
        ],
      })
      const turn = await provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'both' }], tools: [WEATHER, TIME] })
      expect(turn.text).toBe('')
      expect(turn.tool_calls).toEqual([
        { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } },
        { id: 'call_2', name: 'get_time', arguments: { zone: 'Europe/Oslo' } },
      ])
      expect(turn.stop_reason).toBe('tool_use')
      expect(turn.usage).toEqual({ input_tokens: 3, output_tokens: 2 })
    })

    test('text before a tool call is kept with it', async () => {
      fake.behave({ reply: 'Let me check.', toolCalls: [{ id: 'c', name: 'get_time', arguments: '{}' }] })
      const turn = await provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'time?' }], tools: [TIME] })
      expect(turn).toMatchObject({ text: 'Let me check.', tool_calls: [{ id: 'c', name: 'get_time', arguments: {} }], stop_reason: 'tool_use' })
    })

    test('malformed tool-call JSON is reported on the call, with what was sent', async () => {
      fake.behave({ toolCalls: [{ id: 'bad', name: 'get_weather', arguments: '{"city": "Lyon",', pieces: 3 }] })
      const turn = await provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'x' }], tools: [WEATHER] })
      const call = turn.tool_calls[0]!
      expect(call.arguments).toEqual({})
      expect(call.invalid_arguments?.raw).toBe('{"city": "Lyon",')
      expect(call.invalid_arguments?.message).toStartWith('Malformed JSON in the arguments of "get_weather":')
    })

    test('arguments that are JSON but not an object are reported too', async () => {
      fake.behave({ toolCalls: [{ id: 'arr', name: 'get_weather', arguments: '["Lyon"]' }] })
      const turn = await provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'x' }], tools: [WEATHER] })
      expect(turn.tool_calls[0]!.invalid_arguments?.message).toBe('The arguments of "get_weather" are not a JSON object')
    })

    test('tool calls and tool results are sent back in the native shape', async () => {
      fake.behave({ reply: 'Sunny, 21 degrees.' })
      const messages: ChatMessage[] = [
        { role: 'user', content: 'Weather in Lyon and the time?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', name: 'get_weather', arguments: { city: 'Lyon' } },
            { id: 'call_2', name: 'get_time', arguments: {} },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '{"temp":21,"sky":"sunny"}' },
        { role: 'tool', tool_call_id: 'call_2', name: 'get_time', content: 'clock unavailable', is_error: true },
      ]
      const turn = await provider.complete({ model: 'm', system: null, messages, tools: [WEATHER, TIME] })
      expect(turn.text).toBe('Sunny, 21 degrees.')
      const sent = fake.requests.at(-1)!.body.messages
      if (format === 'openai') {
        expect(sent).toEqual([
          { role: 'user', content: 'Weather in Lyon and the time?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } },
              { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21,"sky":"sunny"}' },
          { role: 'tool', tool_call_id: 'call_2', content: 'clock unavailable' },
        ])
      } else {
        expect(sent).toEqual([
          { role: 'user', content: 'Weather in Lyon and the time?' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Lyon' } },
              { type: 'tool_use', id: 'call_2', name: 'get_time', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'call_1', content: '{"temp":21,"sky":"sunny"}' },
              { type: 'tool_result', tool_use_id: 'call_2', content: 'clock unavailable', is_error: true },
            ],
          },
        ])
      }
    })

    test('the token cap is reported as stop reason max_tokens', async () => {
      fake.behave({ reply: 'cut sho', stop: format === 'openai' ? 'length' : 'max_tokens' })
      expect((await provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'x' }], max_tokens: 3 })).stop_reason).toBe('max_tokens')
      const body = fake.requests.at(-1)!.body
      expect(body.max_tokens).toBe(3)
    })

    test('an error event in the middle of the stream fails the turn readably', async () => {
      fake.behave({ reply: 'partial answer here', pieces: 3, errorAfter: { after: 2, message: 'Overloaded', type: 'overloaded_error' } })
      const error = await failure(provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'x' }] }))
      expect(error.message).toContain(`The ${format} provider at ${fake.url}`)
      expect(error.message).toContain('Overloaded')
      expect(error.code).toBe('http')
    })

    test('a stream that goes silent fails with a time-out, not a hang', async () => {
      const quick = makeProvider(format, fake.url, 'sk', 300)
      fake.behave({ reply: 'never finished', pieces: 3, stallAfter: 2 })
      const error = await failure(quick.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'x' }] }))
      expect(error.message).toBe(`The ${format} provider at ${fake.url} did not answer within 0.3 s`)
      expect(error).toMatchObject({ code: 'timeout', retryable: true })
      fake.release()
    })

    test('leaving the stream early ends the call', async () => {
      fake.behave({ reply: 'a b c d e f', pieces: 6 })
      for await (const event of provider.stream({ model: 'm', system: null, messages: [{ role: 'user', content: 'x' }] })) {
        expect(event.type).toBe('text_delta')
        break
      }
      // The next call works normally: nothing was left half-read.
      fake.behave({ reply: 'again' })
      expect((await provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'x' }] })).text).toBe('again')
    })
  })
}

describe('model calls go through the guarded outbound client', () => {
  let fake: FakeServer
  beforeAll(() => {
    fake = startFakeServer('openai')
  })
  afterAll(() => fake.close())

  test('a model server on loopback that the operator did not configure is refused before any request', async () => {
    const before = fake.requests.length
    // The client allows nothing: this provider was not built from configuration, so its base URL opens nothing.
    const provider = new OpenAIProvider({ baseUrl: fake.url, apiKey: 'k' }, 2_000, guardedFetch(guardedOutbound().stream))
    const error = await failure(provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'x' }] }))
    expect(error.message).toBe(`Could not reach the openai provider at ${fake.url}: Destination not allowed`)
    expect(error.code).toBe('unreachable')
    expect(fake.requests.length).toBe(before)
  })

  test("the configured base URL opens only its own host and port, not the host's other ports", async () => {
    const other = startFakeServer('openai')
    try {
      // Configured for `fake`; the same client asked for `other` (same host, another port) is refused.
      const fetch = modelFetch(guardedOutbound(), llmConfig('openai', fake.url, 'k', 2_000))
      const provider = new OpenAIProvider({ baseUrl: other.url, apiKey: 'k' }, 2_000, fetch)
      const error = await failure(provider.complete({ model: 'm', system: null, messages: [{ role: 'user', content: 'x' }] }))
      expect(error.message).toContain('Destination not allowed')
      expect(other.requests).toHaveLength(0)
    } finally {
      await other.close()
    }
  })
})
