// The events of a chat turn, as a streamed answer sends them (Server-Sent Events) and as the JSON answer is built from.
import type { Static } from '@sinclair/typebox'
import type { CHAT_EVENTS } from './schema.ts'

type Events = typeof CHAT_EVENTS
export type ChatEventName = keyof Events

/** One event: its name and its data, as documented in CHAT_EVENTS. */
export type ChatStreamEvent = { [Name in ChatEventName]: { event: Name; data: Static<Events[Name]> } }[ChatEventName]

export type ModelRef = { provider: string; model: string }
export type ToolCallView = Omit<Static<Events['tool_result']>, 'model'> & { arguments: Record<string, unknown> }
export type AssistantMessageView = Static<Events['message']>
export type StopReason = AssistantMessageView['stop_reason']

/** Where a turn's events go: the SSE stream, or nowhere (a JSON answer is built from the turn's result). */
export type Emit = (event: ChatStreamEvent) => void

const encoder = new TextEncoder()

/** One event in the text/event-stream format: its name, its data as one line of JSON, a blank line. */
export function sseBytes(event: ChatStreamEvent): Uint8Array {
  return encoder.encode(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`)
}

/** A comment line: ignored by clients, it keeps proxies and idle timers from closing a quiet stream. */
export const SSE_KEEPALIVE = encoder.encode(': keep-alive\n\n')
