// The chat module's public entry: the port external MCP servers' tools plug into, and what a turn's events are.
export type { ExternalTools, OpenTurn } from './service.ts'
export type { ChatStreamEvent } from './events.ts'
