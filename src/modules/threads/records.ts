// Rows to API records and to model messages: what a thread and its messages look like outside the database.
import type { ThreadMessagesTable, ThreadsTable } from '../../platform/db/tables/threads.ts'
import type { ChatMessage, TokenUsage, ToolCall } from '../../llm/provider.ts'

export type ThreadRow = ThreadsTable

export interface ThreadSummaryRecord {
  id: string
  owner_id: string
  title: string | null
  agent_name: string | null
  task_id: string | null
  created_at: string
  updated_at: string
}

export interface ThreadMessageRecord {
  id: string
  role: ThreadMessagesTable['role']
  content: string
  created_at: string
  tool_calls: ToolCall[] | null
  tool_result: { tool_call_id: string; name: string; is_error: boolean } | null
  model: { provider: string; model: string } | null
  usage: TokenUsage | null
  /** What the writer kept beside the message (chat: the turn's mode, a comparison, suggestions); null when nothing. */
  metadata: Record<string, unknown> | null
}

export interface ThreadRecord extends ThreadSummaryRecord {
  messages: ThreadMessageRecord[]
}

/** What a caller appends: a model message, plus which model wrote it and what it cost (assistant messages). */
export type NewThreadMessage = ChatMessage & {
  model?: { provider: string; model: string } | null
  usage?: TokenUsage | null
  metadata?: Record<string, unknown> | null
}

export const toSummary = (row: ThreadRow): ThreadSummaryRecord => ({
  id: row.id,
  owner_id: row.owner_id,
  title: row.title,
  agent_name: row.agent_name,
  task_id: row.task_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
})

export function toMessageRecord(row: ThreadMessagesTable): ThreadMessageRecord {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    created_at: row.created_at,
    tool_calls: row.tool_calls === null ? null : (JSON.parse(row.tool_calls) as ToolCall[]),
    tool_result: row.tool_result === null ? null : (JSON.parse(row.tool_result) as ThreadMessageRecord['tool_result']),
    model: row.model_provider !== null && row.model_name !== null ? { provider: row.model_provider, model: row.model_name } : null,
    usage: row.input_tokens !== null && row.output_tokens !== null ? { input_tokens: row.input_tokens, output_tokens: row.output_tokens } : null,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
  }
}

export function toMessageRow(threadId: string, id: string, createdAt: string, message: NewThreadMessage): ThreadMessagesTable {
  const toolCalls = message.role === 'assistant' && message.tool_calls?.length ? JSON.stringify(message.tool_calls) : null
  const toolResult =
    message.role === 'tool' ? JSON.stringify({ tool_call_id: message.tool_call_id, name: message.name, is_error: message.is_error === true }) : null
  return {
    id,
    thread_id: threadId,
    role: message.role,
    content: message.content,
    tool_calls: toolCalls,
    tool_result: toolResult,
    model_provider: message.model?.provider ?? null,
    model_name: message.model?.model ?? null,
    input_tokens: message.usage?.input_tokens ?? null,
    output_tokens: message.usage?.output_tokens ?? null,
    metadata: message.metadata ? JSON.stringify(message.metadata) : null,
    created_at: createdAt,
  }
}

/** A stored message as a model reads it again. */
export function toChatMessage(record: ThreadMessageRecord): ChatMessage {
  switch (record.role) {
    case 'assistant':
      return record.tool_calls ? { role: 'assistant', content: record.content, tool_calls: record.tool_calls } : { role: 'assistant', content: record.content }
    case 'tool':
      return {
        role: 'tool',
        tool_call_id: record.tool_result?.tool_call_id ?? '',
        name: record.tool_result?.name ?? '',
        content: record.content,
        ...(record.tool_result?.is_error && { is_error: true }),
      }
    default:
      return { role: record.role, content: record.content }
  }
}
