// Tasks with agents, through the real server: agent_id is checked against what the caller may use, runs use live instructions.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let alice: { id: string; token: string }
let bob: { id: string; token: string }
beforeEach(async () => {
  t = await startTestServer({ now: '2026-03-02T08:00:00.000Z' })
  const { adminToken } = await t.provision()
  alice = await t.createUser(adminToken, { email: 'alice@example.com' })
  bob = await t.createUser(adminToken, { email: 'bob@example.com' })
})
afterEach(() => t.close())

/** Creates an agent as `token`, publishes it, and returns its id. */
async function publishedAgent(token: string, name: string, instructions: string): Promise<string> {
  const created = await t.request('POST', '/api/agents', { token, body: { name, description: `${name} agent`, instructions } })
  expect(created.status).toBe(201)
  expect((await t.request('POST', `/api/agents/${name}/publish`, { token, body: {} })).status).toBe(201)
  return created.body.id
}

async function runAndRead(taskId: string, token = alice.token) {
  const run = (await t.request('POST', `/api/task/${taskId}/run`, { token })).body
  await t.server.modules.tasks.scheduler.idle()
  const runs = (await t.request('GET', `/api/task/${taskId}/runs`, { token })).body
  const thread = (await t.request('GET', `/api/threads/${run.thread_id}`, { token })).body
  return { run: runs.find((r: any) => r.id === run.id), reply: thread.messages.at(-1) }
}

describe('agent_id on tasks', () => {
  test("another member's private agent, or an unknown id, is 422 Unknown agent on body.agent_id", async () => {
    const bobs = await publishedAgent(bob.token, 'bobs-agent', 'Be Bob.')
    for (const agentId of [bobs, 'no-such-agent']) {
      const res = await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p', agent_id: agentId } })
      expect(res.status).toBe(422)
      expect(res.body).toEqual({ detail: [{ loc: ['body', 'agent_id'], msg: 'Unknown agent', type: 'value_error', input: agentId }] })
    }
  })

  test('an agent shared with the caller as viewer can be used', async () => {
    const bobs = await publishedAgent(bob.token, 'bobs-agent', 'Be Bob.')
    expect((await t.request('POST', '/api/agents/bobs-agent/members', { token: bob.token, body: { email: 'alice@example.com', role: 'viewer' } })).status).toBe(
      201,
    )
    const res = await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p', agent_id: bobs } })
    expect(res.status).toBe(201)
    expect((await runAndRead(res.body.id)).reply.content).toContain('Instructions: "Be Bob.".')
  })

  test("runs send the agent's live instructions, not the draft, as they are at run time", async () => {
    const agentId = await publishedAgent(alice.token, 'helper', 'Answer in French.')
    const task = (await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'Bonjour?', agent_id: agentId } })).body
    expect((await runAndRead(task.id)).reply.content).toContain('Instructions: "Answer in French.".')
    // Saving the draft changes nothing until it is published.
    await t.request('PATCH', '/api/agents/helper', { token: alice.token, body: { instructions: 'Answer in German.' } })
    expect((await runAndRead(task.id)).reply.content).toContain('Instructions: "Answer in French.".')
    await t.request('POST', '/api/agents/helper/publish', { token: alice.token, body: { note: 'German' } })
    expect((await runAndRead(task.id)).reply.content).toContain('Instructions: "Answer in German.".')
    // Switching live back to v1 switches the task back too.
    await t.request('POST', '/api/agents/helper/live', { token: alice.token, body: { version: 1 } })
    expect((await runAndRead(task.id)).reply.content).toContain('Instructions: "Answer in French.".')
  })

  test('a deleted agent fails the run with a readable error', async () => {
    const agentId = await publishedAgent(alice.token, 'gone', 'x')
    const task = (await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p', agent_id: agentId } })).body
    expect((await t.request('DELETE', '/api/agents/gone', { token: alice.token })).status).toBe(204)
    const { run } = await runAndRead(task.id)
    expect(run).toMatchObject({ status: 'failed', error: `Agent ${agentId} no longer exists or has no live version` })
  })

  test('an agent never published fails the run the same way', async () => {
    const created = await t.request('POST', '/api/agents', { token: alice.token, body: { name: 'draft-only', description: 'd', instructions: 'i' } })
    const task = (await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p', agent_id: created.body.id } })).body
    expect((await runAndRead(task.id)).run.status).toBe('failed')
  })

  test('update checks a new agent_id, but an unrelated edit does not re-check the stored one', async () => {
    const mine = await publishedAgent(alice.token, 'mine', 'x')
    const theirs = await publishedAgent(bob.token, 'theirs', 'y')
    const task = (await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p', agent_id: mine } })).body
    const bad = await t.request('PATCH', `/api/task/${task.id}`, { token: alice.token, body: { agent_id: theirs } })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'agent_id'], msg: 'Unknown agent' })
    expect((await t.request('PATCH', `/api/task/${task.id}`, { token: alice.token, body: { name: 'renamed' } })).status).toBe(200)
    expect((await t.request('PATCH', `/api/task/${task.id}`, { token: alice.token, body: { agent_id: null } })).body.agent_id).toBeNull()
  })

  test('a task without an agent runs with no system prompt', async () => {
    const task = (await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p' } })).body
    expect((await runAndRead(task.id)).reply.content).not.toContain('Instructions:')
  })
})
