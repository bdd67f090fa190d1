// Shared setup for the workflow API tests: a provisioned server, people, an agent, and definition builders.
import { type People, startWithPeople } from '../helpers/people.ts'

export type { People } from '../helpers/people.ts'

export const setup = (): Promise<People> => startWithPeople()

let agents = 0
/** A new agent owned by `owner`, shared with viewer@example.com. */
export async function newAgent(p: People): Promise<string> {
  const name = `flow-bot-${++agents}`
  const res = await p.t.request('POST', '/api/agents', { token: p.owner.token, body: { name, description: 'd', instructions: 'i' } })
  if (res.status !== 201) throw new Error(`agent: ${res.status} ${JSON.stringify(res.body)}`)
  await p.t.request('POST', `/api/agents/${name}/members`, { token: p.owner.token, body: { email: 'viewer@example.com', role: 'viewer' } })
  return name
}

/** Saves a workflow in the draft and publishes it; returns its id. */
export async function saveWorkflow(p: People, agent: string, definition: unknown, options: { publish?: boolean; name?: string } = {}): Promise<string> {
  const res = await p.t.request('POST', `/api/workflows/${agent}`, { token: p.owner.token, body: { name: options.name ?? 'flow', definition } })
  if (res.status !== 201) throw new Error(`save: ${res.status} ${JSON.stringify(res.body)}`)
  if (options.publish !== false) await p.t.request('POST', `/api/agents/${agent}/publish`, { token: p.owner.token, body: {} })
  return res.body.id
}

export const node = (id: string, type: string, params: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  id,
  type: `agentbox.${type}`,
  params,
  ...extra,
})
export const edge = (from: string, to: string, port?: string) => (port ? { from, port, to } : { from, to })

/** input → gate → output: the smallest workflow with an approval gate. */
export const gateFlow = (gateParams: Record<string, unknown> = {}, extra: { rejected?: boolean; timeout?: boolean } = {}) => ({
  nodes: [
    node('prep', 'set', { values: { amount: '{{ $json.amount }}', note: 'refund' } }),
    node('gate', 'approval', { message: 'Refund {{ $json.amount }}?', ...gateParams }),
    node('out', 'output', { value: '{{ $json }}' }),
    ...(extra.rejected ? [node('on_reject', 'output', { value: { rejected: true, reason: '{{ $json._approval.reason }}' } })] : []),
    ...(extra.timeout ? [node('on_timeout', 'output', { value: 'timed out' })] : []),
  ],
  connections: [
    edge('prep', 'gate'),
    edge('gate', 'out', 'approved'),
    ...(extra.rejected ? [edge('gate', 'on_reject', 'rejected')] : []),
    ...(extra.timeout ? [edge('gate', 'on_timeout', 'timeout')] : []),
  ],
})

/** Signs everyone in again: access tokens expire when a test moves the clock by hours or days. */
export async function refresh(p: People): Promise<void> {
  p.admin = await p.t.login('admin@example.com', 'correct horse battery')
  p.owner.token = await p.t.login('owner@example.com', 'a long enough password')
  p.viewer.token = await p.t.login('viewer@example.com', 'a long enough password')
  p.outsider.token = await p.t.login('outsider@example.com', 'a long enough password')
}
