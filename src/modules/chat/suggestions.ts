// Follow-up suggestions (enable_follow_up_suggestions): up to three short messages the user might send next. A real
// model is asked for them in one small extra call after the answer (no tools; a failure just means none); the mock model
// gets deterministic ones made from the turn, so tests and offline instances see the same chips every time.
import type { ChatProvider, TokenUsage } from '../../llm/provider.ts'
import type { ModelRef, ToolCallView } from './events.ts'

export const MAX_SUGGESTIONS = 3
const MAX_SUGGESTION_CHARS = 200
const MAX_ANSWER_CHARS = 4000

export interface SuggestionInput {
  readonly side: { readonly ref: ModelRef; readonly provider: ChatProvider }
  readonly language: string
  readonly userMessage: string
  readonly answer: string
  readonly toolCalls: readonly ToolCallView[]
  /** The tools the turn offered, by name. */
  readonly offered: readonly string[]
  readonly signal: AbortSignal
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** The mock's: the tools the turn used, then ones it offered but did not use, then a summary; three at most. */
export function mockSuggestions(toolCalls: readonly ToolCallView[], offered: readonly string[]): string[] {
  const used = [...new Set(toolCalls.filter((call) => !call.is_error).map((call) => call.name))]
  const items = used.map((name) => `Explain the result of ${name}`)
  for (const name of offered) if (!used.includes(name)) items.push(`What can ${name} do?`)
  items.push('Summarise that in one sentence')
  return items.slice(0, MAX_SUGGESTIONS)
}

/** One suggestion per line of the model's answer, without list markers or quotes. */
export function parseSuggestions(text: string): string[] {
  const items: string[] = []
  for (const line of text.split('\n')) {
    const item = line
      .trim()
      .replace(/^(?:[-*•]|\d+[.)])\s*/, '')
      .replace(/^["“']|["”']$/g, '')
      .trim()
    if (item && !items.includes(item)) items.push(clip(item, MAX_SUGGESTION_CHARS))
    if (items.length === MAX_SUGGESTIONS) break
  }
  return items
}

export async function followUpSuggestions(input: SuggestionInput): Promise<{ items: string[]; usage: TokenUsage | null }> {
  const { ref, provider } = input.side
  if (provider.name === 'mock') return { items: mockSuggestions(input.toolCalls, input.offered), usage: null }
  try {
    const turn = await provider.complete({
      model: ref.model,
      system: `You suggest what a user might say next to an assistant. Write in the language whose code is ${input.language}.`,
      messages: [
        { role: 'user', content: clip(input.userMessage, MAX_ANSWER_CHARS) },
        { role: 'assistant', content: clip(input.answer, MAX_ANSWER_CHARS) },
        {
          role: 'user',
          content: `Suggest up to ${MAX_SUGGESTIONS} short follow-up messages I might send next, one per line, with nothing else.`,
        },
      ],
      max_tokens: 200,
      signal: input.signal,
    })
    return { items: parseSuggestions(turn.text), usage: turn.usage }
  } catch {
    // Suggestions are a courtesy: a failure leaves the answer as it is, without chips.
    return { items: [], usage: null }
  }
}
