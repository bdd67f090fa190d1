// The threads module's public entry: what other modules (tasks, chat) may use.
export type { NewThreadMessage, ThreadMessageRecord, ThreadRecord, ThreadSummaryRecord } from './records.ts'
export { toChatMessage } from './records.ts'
export { HISTORY_MAX_CHARS, type NewThread, type ThreadListQuery, THREAD_NOT_FOUND, ThreadsService } from './service.ts'
