// Tasks with the agents capability handed in (createTasksModule(ctx, { agents })): agent_id is checked, runs use live instructions.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config.ts'
import { authGuard } from '../../src/platform/auth/guard.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import { notAuthenticated } from '../../src/platform/http/http-error.ts'
import { httpPlatform } from '../../src/platform/http/http-platform.ts'
import { JobRunner } from '../../src/platform/jobs.ts'
import { createTasksModule, type AgentDirectory, type TasksModule } from '../../src/modules/tasks/module.ts'
import { CapturedLog } from '../helpers/server.ts'

const NOW = '2026-03-02T08:00:00.000Z'

/** The agents capability as the tasks module sees it: live instructions per agent, and who may use which agent. */
class FakeAgents implements AgentDirectory {
  readonly live = new Map<string, string | null>()
  readonly users = new Map<string, Set<string>>()
  add(agentId: string, instructions: string | null, ...userIds: string[]) {
    this.live.set(agentId, instructions)
    this.users.set(agentId, new Set(userIds))
  }
  async liveInstructions(agentId: string) {
    return this.live.get(agentId) ?? null
  }
  async visibleTo(agentId: string, principal: Principal) {
    return this.users.get(agentId)?.has(principal.userId) ?? false
  }
}

const person = (id: string, role: 'admin' | 'member' = 'member'): Principal => ({ userId: id, email: `${id}@example.com`, name: id, role, kind: 'person', via: 'access_token', tokenId: null })

let dataDir: string
let database: DatabaseHandle
let tasks: TasksModule
let app: { handle(request: Request): Promise<Response> }
let agents: FakeAgents

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'agentbox-tasks-agents-'))
  const clock = new ManualClock(NOW)
  const logger = new CapturedLog()
  const config = loadConfig(['serve'], { AGENTBOX_DATA_DIR: dataDir })
  database = openDatabase(join(dataDir, 'agentbox.db'))
  await migrateToLatest(database, dataDir, clock.now())
  const principals = new Map([['alice', person('alice')], ['bob', person('bob')]])
  for (const p of principals.values()) {
    await database.db.insertInto('users').values({ id: p.userId, kind: 'person', email: p.email, name: p.name, role: p.role, password_hash: null, active: 1, session_version: 0, created_at: NOW, updated_at: NOW }).execute()
  }
  const guard = authGuard({
    authenticate: (header) => {
      const principal = principals.get(header?.replace(/^Bearer /, '') ?? '')
      if (!principal) throw notAuthenticated()
      return principal
    },
    licenseLapsed: () => false,
  })
  agents = new FakeAgents()
  tasks = createTasksModule({ config, clock, logger, database, guard, jobs: new JobRunner(logger) }, { agents })
  await tasks.start?.()
  app = new Elysia().use(httpPlatform({ logger, limits: { json: config.bodyLimit, upload: config.uploadBodyLimit } })).use(tasks.routes)
})

afterEach(async () => {
  await tasks.stop?.()
  await database.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function request(method: string, path: string, token: string, body?: unknown) {
  const response = await app.handle(new Request(`http://localhost${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }))
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : null }
}

const runAndRead = async (taskId: string, token = 'alice') => {
  const run = (await request('POST', `/api/task/${taskId}/run`, token)).body
  await tasks.scheduler.idle()
  const runs = (await request('GET', `/api/task/${taskId}/runs`, token)).body
  const thread = (await request('GET', `/api/threads/${run.thread_id}`, token)).body
  return { run: runs.find((r: any) => r.id === run.id), reply: thread.messages.at(-1) }
}

describe('agent_id with the agents capability', () => {
  test('an agent the caller cannot use, or that does not exist, is 422 Unknown agent on body.agent_id', async () => {
    agents.add('bobs-agent', 'Be Bob.', 'bob')
    for (const agentId of ['bobs-agent', 'no-such-agent']) {
      const res = await request('POST', '/api/task', 'alice', { name: 'n', prompt: 'p', agent_id: agentId })
      expect(res.status).toBe(422)
      expect(res.body).toEqual({ detail: [{ loc: ['body', 'agent_id'], msg: 'Unknown agent', type: 'value_error', input: agentId }] })
    }
  })

  test('runs send the agent\'s live instructions as the system prompt, as they are at run time', async () => {
    agents.add('helper', 'Answer in French.', 'alice')
    const task = (await request('POST', '/api/task', 'alice', { name: 'n', prompt: 'Bonjour?', agent_id: 'helper' })).body
    expect(task.agent_id).toBe('helper')
    expect((await runAndRead(task.id)).reply.content).toContain('Instructions: "Answer in French.".')
    agents.live.set('helper', 'Answer in German.')
    expect((await runAndRead(task.id)).reply.content).toContain('Instructions: "Answer in German.".')
  })

  test('an agent that lost its live version fails the run with a readable error', async () => {
    agents.add('gone', 'x', 'alice')
    const task = (await request('POST', '/api/task', 'alice', { name: 'n', prompt: 'p', agent_id: 'gone' })).body
    agents.live.set('gone', null)
    const { run } = await runAndRead(task.id)
    expect(run).toMatchObject({ status: 'failed', error: 'Agent gone no longer exists or has no live version' })
  })

  test('update checks a new agent_id, but an unrelated edit does not re-check the stored one', async () => {
    agents.add('mine', 'x', 'alice')
    agents.add('theirs', 'y', 'bob')
    const task = (await request('POST', '/api/task', 'alice', { name: 'n', prompt: 'p', agent_id: 'mine' })).body
    const bad = await request('PATCH', `/api/task/${task.id}`, 'alice', { agent_id: 'theirs' })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'agent_id'], msg: 'Unknown agent' })
    agents.users.get('mine')!.delete('alice')
    expect((await request('PATCH', `/api/task/${task.id}`, 'alice', { name: 'renamed' })).status).toBe(200)
    expect((await request('PATCH', `/api/task/${task.id}`, 'alice', { agent_id: null })).body.agent_id).toBeNull()
  })

  test('a task without an agent runs with no system prompt', async () => {
    const task = (await request('POST', '/api/task', 'alice', { name: 'n', prompt: 'p' })).body
    expect((await runAndRead(task.id)).reply.content).not.toContain('Instructions:')
  })
})
