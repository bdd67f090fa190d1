// The embedded default provider: offline and deterministic, and its replies say plainly that they come from a mock.
//
// Its rule (docs/api.md "The mock model"), so that tool calling is testable without a real model:
// 1. When tool results came after the latest user message, it answers with text quoting each result briefly.
// 2. Otherwise, every offered tool whose exact name appears in the latest user message as a whole word (not part of a
//    longer name made of letters, digits, `_`, `-` or `.`) is called once, in the order the names first appear. The
//    arguments are the JSON object written right after the name (spaces and one `:` may come between), else `{}`;
//    an object that is not valid JSON is reported as the call's invalid_arguments, as a real model's would be.
// 3. Otherwise it answers with text naming the model and echoing the instructions and the message.
// Replies stream in several deltas (a tool call's arguments in two), usage is counted as one token per 4 characters.
import type { ChatEvent, ChatMessage, ChatProvider, ChatRequest, ChatTurn, ToolCall, ToolDefinition } from './provider.ts'
import { collectTurn, parseToolArguments, ProviderError, SHUTDOWN_REASON } from './provider.ts'

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)
const tokens = (characters: number) => Math.max(1, Math.ceil(characters / 4))
const NAME_CHAR = /[A-Za-z0-9_.-]/

/** Where `name` first appears in `text` as a whole name, or -1. */
function findName(text: string, name: string): number {
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    const before = at === 0 ? '' : text[at - 1]!
    const after = text[at + name.length] ?? ''
    if (!NAME_CHAR.test(before) && !NAME_CHAR.test(after)) return at
  }
  return -1
}

/** The JSON object text starting at `start` (balanced braces, strings respected), or the rest of the text if it never closes. */
function objectText(text: string, start: number): string {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i++
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char === '{') depth++
    else if (char === '}' && --depth === 0) return text.slice(start, i + 1)
  }
  return text.slice(start)
}

/** The raw arguments written after a tool's name: the object text, or '' for none. */
function argumentsAfter(text: string, end: number): string {
  const rest = /^\s*:?\s*/.exec(text.slice(end))![0].length
  return text[end + rest] === '{' ? objectText(text, end + rest) : ''
}

/** Splits text into about `parts` pieces at spaces, so a reply arrives in several deltas. */
function pieces(text: string, parts: number): string[] {
  if (text.length === 0) return []
  const size = Math.ceil(text.length / parts)
  const out: string[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + size)
    const space = text.indexOf(' ', end)
    if (end < text.length && space !== -1 && space - end < 20) end = space + 1
    out.push(text.slice(start, end))
    start = end
  }
  return out
}

export class MockProvider implements ChatProvider {
  readonly name = 'mock' as const

  /** The turn the rule gives, before it is streamed. */
  #turn({ model, system, messages, tools }: ChatRequest): { text: string; calls: { call: ToolCall; raw: string }[] } {
    const lastUser = messages.findLastIndex((m) => m.role === 'user')
    const results = messages.slice(lastUser + 1).filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool')
    if (results.length > 0) {
      const quoted = results.map((r) => `The tool "${r.name}" ${r.is_error ? 'failed' : 'returned'}: "${clip(r.content, 200)}".`)
      return { text: `[mock reply] ${quoted.join(' ')}`, calls: [] }
    }
    const prompt = lastUser === -1 ? '' : (messages[lastUser] as { content: string }).content
    const named = (tools ?? [])
      .map((tool: ToolDefinition) => ({ tool, at: findName(prompt, tool.name) }))
      .filter(({ at }) => at !== -1)
      .sort((a, b) => a.at - b.at)
    if (named.length > 0) {
      // Ids unique within the conversation: the assistant turn's number and the call's place in it.
      const turn = messages.filter((m) => m.role === 'assistant').length + 1
      const calls = named.map(({ tool, at }, index) => {
        const raw = argumentsAfter(prompt, at + tool.name.length)
        return { call: parseToolArguments(`mock_${turn}_${index}`, tool.name, raw), raw }
      })
      return { text: '', calls }
    }
    // Echoing the instructions and the turn number lets an operator (and a test) see what reached the model.
    const prompts = messages.filter((m) => m.role === 'user')
    const parts = [`[mock reply] This answer comes from the built-in mock model "${model}", not a real one.`]
    if (system) parts.push(`Instructions: "${clip(system, 200)}".`)
    parts.push(`Turn ${prompts.length}. You said: "${clip(prompt, 500)}"`)
    return { text: parts.join(' '), calls: [] }
  }

  async *stream(request: ChatRequest): AsyncGenerator<ChatEvent> {
    const { text, calls } = this.#turn(request)
    const check = () => {
      if (request.signal?.aborted) throw new ProviderError('mock', `Interrupted: ${SHUTDOWN_REASON}`, { retryable: false, code: 'interrupted' })
    }
    check()
    for (const piece of pieces(text, 4)) {
      // A turn of the event loop between deltas, as a real stream has.
      await Promise.resolve()
      check()
      yield { type: 'text_delta', text: piece }
    }
    for (const [index, { call, raw }] of calls.entries()) {
      yield { type: 'tool_call_start', index, id: call.id, name: call.name }
      const half = Math.ceil(raw.length / 2)
      for (const part of [raw.slice(0, half), raw.slice(half)]) if (part) yield { type: 'tool_call_delta', index, arguments: part }
      yield { type: 'tool_call_end', index, call }
    }
    const input = (request.system?.length ?? 0) + request.messages.reduce((sum, m) => sum + m.content.length, 0)
    const output = text.length + calls.reduce((sum, { call, raw }) => sum + call.name.length + raw.length, 0)
    yield { type: 'usage', usage: { input_tokens: tokens(input), output_tokens: tokens(output) } }
    yield { type: 'stop', reason: calls.length > 0 ? 'tool_use' : 'end_turn' }
  }

  complete(request: ChatRequest): Promise<ChatTurn> {
    return collectTurn(this.name, request.model, this.stream(request))
  }
}
