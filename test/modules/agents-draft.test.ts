// The agents service API other modules build on: liveInstructions and agentVisibleTo (tasks), readDraft/updateDraft/readLive (workflows, skills).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { documentHash, parseDocument } from '../../src/modules/agents/document.ts'
import { sha256Hex } from '../../src/platform/ids.ts'
import {
  agentVisibleTo,
  authorizeAgent,
  liveInstructions,
  readDraft,
  readLive,
  readVersion,
  updateDraft,
  type AgentsStore,
} from '../../src/modules/agents/service.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { conflict, type DomainError } from '../../src/platform/errors.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

type User = { id: string; token: string; principal: Principal }
let t: TestServer
let store: AgentsStore
let adminToken: string
let owner: User
let viewer: User
let outsider: User
let admin: Principal

const principalOf = async (token: string): Promise<Principal> => {
  const me = (await t.request('GET', '/api/auth/me', { token })).body
  return { userId: me.id, email: me.email, name: me.name, role: me.role, kind: 'person', via: 'access_token', tokenId: null }
}
const user = async (email: string): Promise<User> => {
  const created = await t.createUser(adminToken, { email })
  return { ...created, principal: await principalOf(created.token) }
}

beforeAll(async () => {
  t = await startTestServer()
  ;({ adminToken } = await t.provision())
  store = { db: t.server.database.db, clock: t.clock }
  owner = await user('owner@example.com')
  viewer = await user('viewer@example.com')
  outsider = await user('outsider@example.com')
  admin = await principalOf(adminToken)
})
afterAll(() => t.close())

let agentCount = 0
let name = ''
let agentId = ''
beforeEach(async () => {
  name = `bot-${++agentCount}`
  const res = await t.request('POST', '/api/agents', { token: owner.token, body: { name, description: 'd', instructions: 'Version one.' } })
  agentId = res.body.id
  await t.request('POST', `/api/agents/${name}/members`, { token: owner.token, body: { email: 'viewer@example.com', role: 'viewer' } })
})

const api = (method: string, path: string, body?: unknown) => t.request(method, `/api/agents/${name}${path}`, { token: owner.token, body })

describe('liveInstructions (tasks use it as the system prompt)', () => {
  test('null for an unknown agent and for one never published', async () => {
    expect(await liveInstructions(store.db, 'no-such-id')).toBeNull()
    expect(await liveInstructions(store.db, agentId)).toBeNull()
  })

  test("the live version's instructions: a save does not change them, a publish or a switch of live does", async () => {
    await api('POST', '/publish')
    expect(await liveInstructions(store.db, agentId)).toBe('Version one.')
    await api('PATCH', '', { instructions: 'Version two.' })
    expect(await liveInstructions(store.db, agentId)).toBe('Version one.')
    await api('POST', '/publish')
    expect(await liveInstructions(store.db, agentId)).toBe('Version two.')
    await api('POST', '/live', { version: 1 })
    expect(await liveInstructions(store.db, agentId)).toBe('Version one.')
  })

  test('null once the agent is deleted', async () => {
    await api('POST', '/publish')
    await api('DELETE', '')
    expect(await liveInstructions(store.db, agentId)).toBeNull()
  })
})

describe('agentVisibleTo (tasks check it before accepting an agent_id)', () => {
  test('owners, viewers and admins may use the agent; others may not; unknown ids are not visible', async () => {
    expect(await agentVisibleTo(store.db, agentId, owner.principal)).toBe(true)
    expect(await agentVisibleTo(store.db, agentId, viewer.principal)).toBe(true)
    expect(await agentVisibleTo(store.db, agentId, admin)).toBe(true)
    expect(await agentVisibleTo(store.db, agentId, outsider.principal)).toBe(false)
    expect(await agentVisibleTo(store.db, 'no-such-id', admin)).toBe(false)
  })
})

describe('authorizeAgent (workflows and skills check access by name)', () => {
  test('not_found for those who may not see it, forbidden for non-owners when owning is needed, the row otherwise', async () => {
    expect((await authorizeAgent(store.db, name, owner.principal, 'own')).id).toBe(agentId)
    expect((await authorizeAgent(store.db, name, viewer.principal, 'use')).role).toBe('viewer')
    const kind = (promise: Promise<unknown>) =>
      promise.then(
        () => 'ok',
        (error: DomainError) => error.kind,
      )
    expect(await kind(authorizeAgent(store.db, name, viewer.principal, 'own'))).toBe('forbidden')
    expect(await kind(authorizeAgent(store.db, name, admin, 'own'))).toBe('forbidden')
    expect(await kind(authorizeAgent(store.db, name, outsider.principal, 'use'))).toBe('not_found')
    expect(await kind(authorizeAgent(store.db, 'no-such-agent', admin, 'use'))).toBe('not_found')
  })
})

describe('updateDraft / readDraft / readLive: other parts travel with the draft', () => {
  const skill = { id: 's1', name: 'summarise', description: 'Summarises', content: '---\nname: summarise\n---\nBody' }
  const workflow = { id: 'w1', name: 'triage', definition: { nodes: [], connections: [] } }

  test('skills, workflows and parts unknown today are saved, published, and restored together', async () => {
    const result = await updateDraft(store, agentId, owner.id, (draft) => {
      draft.skills.push(skill)
      draft.workflows.push(workflow)
      draft.connectors = [{ id: 'c1' }]
      return 'returned'
    })
    expect(result).toBe('returned')
    expect((await api('GET', '')).body.has_unpublished_changes).toBe(true)
    expect((await api('POST', '/publish')).body.version).toBe(1)

    const live = await readLive(store.db, agentId)
    expect(live?.version).toBe(1)
    expect(live?.document).toEqual({
      description: 'd',
      instructions: 'Version one.',
      skills: [skill],
      workflows: [workflow],
      connectors: [{ id: 'c1' }],
    })

    // Change every part, publish v2, then bring v1 back into the draft: all parts return at once.
    await updateDraft(store, agentId, owner.id, (draft) => {
      draft.instructions = 'Version two.'
      draft.skills = []
      draft.workflows[0]!.name = 'renamed'
      delete draft.connectors
    })
    await api('POST', '/publish')
    expect((await readLive(store.db, agentId))?.document.skills).toEqual([])
    await api('POST', '/versions/1/restore')
    expect(await readDraft(store.db, agentId)).toEqual(live!.document)
    expect((await readVersion(store.db, agentId, 2))?.workflows[0]).toMatchObject({ name: 'renamed' })
    // Restoring v1 while v2 is live: the chip is on until v1's content is published or live points back at v1.
    expect((await api('GET', '')).body.has_unpublished_changes).toBe(true)
    expect((await api('POST', '/live', { version: 1 })).body.has_unpublished_changes).toBe(false)
  })

  test('a mutate that throws writes nothing', async () => {
    const before = await readDraft(store.db, agentId)
    const failing = updateDraft(store, agentId, owner.id, (draft) => {
      draft.skills.push(skill)
      throw conflict('A skill with this name already exists')
    })
    await expect(failing).rejects.toThrow('A skill with this name already exists')
    expect(await readDraft(store.db, agentId)).toEqual(before)
  })

  test('a mutate that changes nothing writes nothing: updated_at and the chip stay', async () => {
    await api('POST', '/publish')
    const before = (await api('GET', '')).body
    t.clock.advance(60_000)
    await updateDraft(store, agentId, owner.id, (draft) => {
      draft.description = 'd'
    })
    expect((await api('GET', '')).body).toEqual(before)
  })

  test('content equality ignores the order of object keys', async () => {
    await updateDraft(store, agentId, owner.id, (draft) => void draft.skills.push({ a: 1, b: { c: 2, d: 3 } }))
    await api('POST', '/publish')
    await updateDraft(store, agentId, owner.id, (draft) => {
      draft.skills = [{ b: { d: 3, c: 2 }, a: 1 }]
    })
    expect((await api('GET', '')).body.has_unpublished_changes).toBe(false)
  })

  test('concurrent updates are serialised: none is lost', async () => {
    await Promise.all(Array.from({ length: 25 }, (_, i) => updateDraft(store, agentId, owner.id, (draft) => void draft.skills.push({ id: `s${i}` }))))
    expect((await readDraft(store.db, agentId))?.skills).toHaveLength(25)
  })

  test("updateDraft joins a caller's transaction and rolls back with it", async () => {
    const aborted = store.db.transaction().execute(async (trx) => {
      await updateDraft({ db: trx, clock: t.clock }, agentId, owner.id, (draft) => void draft.workflows.push(workflow))
      expect((await readDraft(trx, agentId))?.workflows).toHaveLength(1)
      throw new Error('abort')
    })
    await expect(aborted).rejects.toThrow('abort')
    expect((await readDraft(store.db, agentId))?.workflows).toEqual([])
  })

  test('unknown agents: readDraft and readLive are null, updateDraft is not_found', async () => {
    expect(await readDraft(store.db, 'no-such-id')).toBeNull()
    expect(await readLive(store.db, 'no-such-id')).toBeNull()
    expect(await readVersion(store.db, agentId, 1)).toBeNull()
    await expect(updateDraft(store, 'no-such-id', owner.id, () => {})).rejects.toMatchObject({ kind: 'not_found', message: 'Agent not found' })
  })

  test('documents stored before a part existed read back with that part empty', () => {
    expect(parseDocument('{"description":"d","instructions":"i"}')).toEqual({
      description: 'd',
      instructions: 'i',
      skills: [],
      workflows: [],
    })
  })

  test('the retired ui_templates part: documents stored with it read without it and hash as they did', () => {
    const stored = '{"description":"d","instructions":"i","skills":[],"workflows":[],"ui_templates":[]}'
    const read = parseDocument(stored)
    expect(read).toEqual({ description: 'd', instructions: 'i', skills: [], workflows: [] })
    expect('ui_templates' in read).toBe(false)
    // The hash versions were stored with before the part went: sha256 of the canonical JSON with the empty part.
    expect(documentHash(read)).toBe(sha256Hex('{"description":"d","instructions":"i","skills":[],"ui_templates":[],"workflows":[]}'))
  })
})
