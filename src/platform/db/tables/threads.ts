// Tables of threads (0004_tasks, reshaped by 0014_threads): conversations of task runs and chat, one resource.

export type ThreadMessageRole = 'system' | 'user' | 'assistant' | 'tool'

export interface ThreadsTable {
  id: string
  /** The user the thread belongs to (a task's creator, a chat's user): only they (and admins, to read) see it. */
  owner_id: string
  /** The agent a chat thread talks to; null for task threads and chats without an agent. */
  agent_name: string | null
  /** The task whose runs write here; null for chat threads. */
  task_id: string | null
  title: string | null
  created_at: string
  /** The last message's time: lists are newest activity first. */
  updated_at: string
}

export interface ThreadMessagesTable {
  id: string
  thread_id: string
  role: ThreadMessageRole
  content: string
  /** JSON array of tool calls (assistant messages that called tools), else null. */
  tool_calls: string | null
  /** JSON {tool_call_id, name, is_error} (tool messages), else null. */
  tool_result: string | null
  model_provider: string | null
  model_name: string | null
  input_tokens: number | null
  output_tokens: number | null
  /** JSON object of what the writer keeps beside the message (chat: mode, comparison, suggestions), else null. (0022) */
  metadata: string | null
  created_at: string
}

export interface ThreadsTables {
  threads: ThreadsTable
  thread_messages: ThreadMessagesTable
}
