// The world most chat tests share: a provisioned server (owner, viewer, outsider), a loopback upstream behind an
// imported application, and the agent `helpdesk` (owner; the viewer may use it) whose live version offers the
// application's operations, a workflow with an approval gate, an echo workflow and a skill.
import { uploadSpec } from '../applications/helpers.ts'
import { type People, startWithPeople } from '../helpers/people.ts'
import type { StartOptions } from '../helpers/server.ts'
import { echoFlow } from '../mcp/helpers.ts'
import { gateFlow } from '../workflows/helpers.ts'
import { ticketsApi, ticketsUpstream } from './helpers.ts'

export const AGENT = 'helpdesk'
export const INSTRUCTIONS = 'Answer about tickets.'
export const SKILL = `---
name: triage
description: How to triage a ticket.
---
Read the ticket, then label it.
`

export interface ChatWorld extends People {
  upstream: ReturnType<typeof ticketsUpstream>
  stop(): Promise<void>
  /** Waits until no chat turn runs and every tool call record is written. */
  settle(): Promise<void>
}

export async function startChatWorld(options: StartOptions = {}): Promise<ChatWorld> {
  const upstream = ticketsUpstream()
  const people = await startWithPeople({ ...options, env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1', ...options.env } })
  const { t, admin, owner } = people
  const imported = await uploadSpec(t, admin, ticketsApi(upstream.url), { api_name: 'tickets', global_spec: 'true' })
  if (imported.status !== 201) throw new Error(`import: ${imported.status} ${JSON.stringify(imported.body)}`)
  const must = async (res: Promise<{ status: number; body: unknown }>, what: string) => {
    const { status, body } = await res
    if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`)
  }
  await must(
    t.request('POST', '/api/agents', { token: owner.token, body: { name: AGENT, description: 'Helps with tickets', instructions: INSTRUCTIONS } }),
    'agent',
  )
  await must(t.request('POST', `/api/agents/${AGENT}/members`, { token: owner.token, body: { email: 'viewer@example.com', role: 'viewer' } }), 'viewer')
  await must(t.request('PATCH', `/api/agents/${AGENT}`, { token: owner.token, body: { applications: [{ api_name: 'tickets' }] } }), 'applications')
  await must(t.request('POST', `/api/workflows/${AGENT}`, { token: owner.token, body: { name: 'refund', definition: gateFlow() } }), 'refund')
  await must(t.request('POST', `/api/workflows/${AGENT}`, { token: owner.token, body: { name: 'echo', definition: echoFlow() } }), 'echo')
  await must(t.request('POST', `/api/agents/${AGENT}/skills`, { token: owner.token, body: { content: SKILL } }), 'skill')
  await must(t.request('POST', `/api/agents/${AGENT}/publish`, { token: owner.token, body: { note: 'v1' } }), 'publish')
  return {
    ...people,
    upstream,
    async settle() {
      await t.server.modules.chat.service.idle()
      await t.server.modules.interactions.service.flush()
    },
    async stop() {
      await t.close()
      upstream.stop()
    },
  }
}

/** The tool calls recorded in one conversation, oldest first. */
export async function recordedIn(w: ChatWorld, conversationId: string) {
  await w.settle()
  const rows = await w.t.server.database.db
    .selectFrom('interactions')
    .select(['user_id', 'kind', 'api_title', 'action', 'is_error', 'client_source', 'conversation_id', 'user_input', 'arguments'])
    .where('conversation_id', '=', conversationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  // SQLite keeps booleans as 0/1, PostgreSQL as booleans: compared as booleans.
  return rows.map((row) => ({ ...row, is_error: Boolean(row.is_error) }))
}
