// The interactions module's public entry: what other modules may use of it (the store every recorder writes through).
export type { InteractionsService, NewInteraction } from './service.ts'
