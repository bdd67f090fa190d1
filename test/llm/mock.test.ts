// The mock model's tool rule (docs/api.md "The mock model"): it calls an offered tool when the latest user message
// names it, with the JSON object written after the name or {}; after tool results it answers with text quoting them;
// it streams in several deltas and reports usage. Deterministic, so chat and tasks are testable offline.
import { describe, expect, test } from 'bun:test'
import { MockProvider } from '../../src/llm/mock.ts'
import type { ChatEvent, ChatMessage, ToolDefinition } from '../../src/llm/provider.ts'

const mock = new MockProvider()
const tool = (name: string): ToolDefinition => ({ name, input_schema: { type: 'object' } })
const TOOLS = [tool('get_weather'), tool('get_weather_forecast'), tool('list_pets')]
const ask = (content: string, tools = TOOLS, history: ChatMessage[] = []) =>
  mock.complete({ model: 'mock', system: null, messages: [...history, { role: 'user', content }], tools })

describe('the mock calls a tool the message names', () => {
  test('with the JSON object written after the name', async () => {
    const turn = await ask('Please get_weather {"city": "Lyon", "days": 2} thanks')
    expect(turn.tool_calls).toEqual([{ id: 'mock_1_0', name: 'get_weather', arguments: { city: 'Lyon', days: 2 } }])
    expect(turn.stop_reason).toBe('tool_use')
    expect(turn.text).toBe('')
  })

  test('a colon may come between the name and the object; nested braces and braces in strings are fine', async () => {
    const turn = await ask('get_weather: {"where": {"city": "a}b"}}')
    expect(turn.tool_calls[0]!.arguments).toEqual({ where: { city: 'a}b' } })
  })

  test('with {} when no object follows', async () => {
    expect((await ask('What does list_pets say?')).tool_calls).toEqual([{ id: 'mock_1_0', name: 'list_pets', arguments: {} }])
  })

  test('only whole names: get_weather_forecast is not get_weather, and a name inside a longer word calls nothing', async () => {
    expect((await ask('run get_weather_forecast')).tool_calls.map((c) => c.name)).toEqual(['get_weather_forecast'])
    expect((await ask('my_list_pets_too')).tool_calls).toEqual([])
  })

  test('several named tools are called once each, in the order they appear (parallel calls)', async () => {
    const turn = await ask('list_pets then get_weather {"city":"Oslo"} and list_pets again')
    expect(turn.tool_calls).toEqual([
      { id: 'mock_1_0', name: 'list_pets', arguments: {} },
      { id: 'mock_1_1', name: 'get_weather', arguments: { city: 'Oslo' } },
    ])
  })

  test('a malformed object is reported as invalid arguments, as a real model would produce', async () => {
    const call = (await ask('get_weather {"city": Lyon}')).tool_calls[0]!
    expect(call.arguments).toEqual({})
    expect(call.invalid_arguments).toMatchObject({ raw: '{"city": Lyon}' })
    expect(call.invalid_arguments!.message).toStartWith('Malformed JSON in the arguments of "get_weather"')
  })

  test('a tool that is not offered is never called, and no tools means text', async () => {
    expect((await ask('get_weather', [tool('other')])).tool_calls).toEqual([])
    expect((await ask('get_weather', [])).text).toStartWith('[mock reply]')
  })

  test('call ids stay unique across turns of one conversation', async () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'list_pets' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'mock_1_0', name: 'list_pets', arguments: {} }] },
      { role: 'tool', tool_call_id: 'mock_1_0', name: 'list_pets', content: '[]' },
      { role: 'assistant', content: 'none' },
    ]
    expect((await ask('list_pets', TOOLS, history)).tool_calls[0]!.id).toBe('mock_3_0')
  })
})

describe('after tool results the mock answers with text', () => {
  test('quoting each result briefly, errors said as such, and calling nothing again', async () => {
    const turn = await mock.complete({
      model: 'mock',
      system: null,
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'get_weather {"city":"Lyon"} and list_pets' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'mock_1_0', name: 'get_weather', arguments: { city: 'Lyon' } },
            { id: 'mock_1_1', name: 'list_pets', arguments: {} },
          ],
        },
        { role: 'tool', tool_call_id: 'mock_1_0', name: 'get_weather', content: `{"temp":21,"notes":"${'x'.repeat(300)}"}` },
        { role: 'tool', tool_call_id: 'mock_1_1', name: 'list_pets', content: 'database down', is_error: true },
      ],
    })
    expect(turn.tool_calls).toEqual([])
    expect(turn.stop_reason).toBe('end_turn')
    expect(turn.text).toStartWith('[mock reply] The tool "get_weather" returned: "{"temp":21,"notes":"xxx')
    expect(turn.text).toContain('…".')
    expect(turn.text).toEndWith('The tool "list_pets" failed: "database down".')
  })
})

describe('streaming and usage', () => {
  test('a text reply comes in several deltas that add up to the text; usage then stop come last', async () => {
    const seen: ChatEvent[] = []
    for await (const event of mock.stream({ model: 'mock', system: 'Be kind.', messages: [{ role: 'user', content: 'Hello there, how are you?' }] }))
      seen.push(event)
    const deltas = seen.filter((e): e is Extract<ChatEvent, { type: 'text_delta' }> => e.type === 'text_delta')
    expect(deltas.length).toBeGreaterThanOrEqual(3)
    const text = deltas.map((d) => d.text).join('')
    expect(text).toBe(
      '[mock reply] This answer comes from the built-in mock model "mock", not a real one. Instructions: "Be kind.". Turn 1. You said: "Hello there, how are you?"',
    )
    expect(seen.at(-2)).toEqual({
      type: 'usage',
      usage: { input_tokens: Math.ceil(('Be kind.'.length + 'Hello there, how are you?'.length) / 4), output_tokens: Math.ceil(text.length / 4) },
    })
    expect(seen.at(-1)).toEqual({ type: 'stop', reason: 'end_turn' })
  })

  test("a tool call's arguments stream in two pieces between its start and end", async () => {
    const seen: ChatEvent[] = []
    for await (const event of mock.stream({ model: 'mock', system: null, messages: [{ role: 'user', content: 'get_weather {"city":"Rome"}' }], tools: TOOLS }))
      seen.push(event)
    expect(seen.map((e) => e.type)).toEqual(['tool_call_start', 'tool_call_delta', 'tool_call_delta', 'tool_call_end', 'usage', 'stop'])
    const args = seen.filter((e) => e.type === 'tool_call_delta').map((e) => (e as { arguments: string }).arguments)
    expect(args.join('')).toBe('{"city":"Rome"}')
  })

  test('an aborted call stops with an interrupted error', async () => {
    const controller = new AbortController()
    controller.abort()
    const error = await mock.complete({ model: 'mock', system: null, messages: [{ role: 'user', content: 'hi' }], signal: controller.signal }).catch((e) => e)
    expect(error).toMatchObject({ name: 'ProviderError', code: 'interrupted' })
  })
})
