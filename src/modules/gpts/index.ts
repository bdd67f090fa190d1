// The GPT apps module's public entry: what other modules may use (nothing yet but the types of its records).
export type { GptRecord } from './service.ts'
export type { GptCaller } from './gpt-keys.ts'
