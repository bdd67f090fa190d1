// The embedded default provider: offline and deterministic, and its reply says plainly that it is a mock.
import type { ChatProvider, ChatReply, ChatRequest } from './provider.ts'

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)

export class MockProvider implements ChatProvider {
  readonly name = 'mock' as const

  async complete({ model, system, messages }: ChatRequest): Promise<ChatReply> {
    const prompts = messages.filter((m) => m.role === 'user')
    const last = prompts.at(-1)?.content ?? ''
    // Echoing the instructions and the turn number lets an operator (and a test) see what reached the model.
    const parts = [`[mock reply] This answer comes from the built-in mock model "${model}", not a real one.`]
    if (system) parts.push(`Instructions: "${clip(system, 200)}".`)
    parts.push(`Turn ${prompts.length}. You said: "${clip(last, 500)}"`)
    return { text: parts.join(' ') }
  }
}
