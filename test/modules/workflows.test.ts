// /api/workflows/{agent_name}: definitions in the draft, published with the agent, validated on save with precise locs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { edge, gateFlow, newAgent, node, setup, type People } from '../workflows/helpers.ts'

let p: People
beforeAll(async () => {
  p = await setup()
})
afterAll(() => p.t.close())

const save = (agent: string, definition: unknown, token = p.owner.token, name = 'wf') =>
  p.t.request('POST', `/api/workflows/${agent}`, { token, body: { name, definition } })
const simple = { nodes: [node('a', 'set', { values: { x: 1 } }), node('out', 'output', { value: '{{ $json.x }}' })], connections: [edge('a', 'out')] }

describe('definitions live in the draft and are published with the agent', () => {
  test('create, list, get, replace and delete (owners); the id is stable across publish', async () => {
    const agent = await newAgent(p)
    const created = await save(agent, simple)
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ name: 'wf', source: 'draft', definition: simple })
    const id = created.body.id
    expect((await p.t.request('GET', `/api/workflows/${agent}`, { token: p.owner.token })).body).toEqual([
      expect.objectContaining({ id, name: 'wf', node_count: 2, source: 'draft' }),
    ])
    const replaced = await p.t.request('PUT', `/api/workflows/${agent}/${id}`, { token: p.owner.token, body: { name: 'renamed', definition: gateFlow() } })
    expect(replaced.status).toBe(200)
    expect(replaced.body.name).toBe('renamed')
    expect((await p.t.request('GET', `/api/agents/${agent}`, { token: p.owner.token })).body.has_unpublished_changes).toBe(true)
    await p.t.request('POST', `/api/agents/${agent}/publish`, { token: p.owner.token, body: {} })
    expect((await p.t.request('GET', `/api/workflows/${agent}/${id}`, { token: p.viewer.token })).body).toMatchObject({ id, name: 'renamed', source: 'live' })
    expect((await p.t.request('DELETE', `/api/workflows/${agent}/${id}`, { token: p.owner.token })).status).toBe(204)
    expect((await p.t.request('GET', `/api/workflows/${agent}/${id}`, { token: p.owner.token })).status).toBe(404)
    // Still in the live version until the next publish, which owners read with version=live.
    expect((await p.t.request('GET', `/api/workflows/${agent}/${id}`, { token: p.viewer.token })).status).toBe(200)
    expect((await p.t.request('GET', `/api/workflows/${agent}/${id}?version=live`, { token: p.owner.token })).body).toMatchObject({ id, source: 'live' })
    expect((await p.t.request('GET', `/api/workflows/${agent}?version=live`, { token: p.owner.token })).body).toEqual([
      expect.objectContaining({ id, name: 'renamed', source: 'live' }),
    ])
    expect((await p.t.request('GET', `/api/workflows/${agent}?version=draft`, { token: p.owner.token })).status).toBe(422)
  })

  test('viewers and admins see the live version only; outsiders get 404; only owners write', async () => {
    const agent = await newAgent(p)
    const id = (await save(agent, simple)).body.id
    expect((await p.t.request('GET', `/api/workflows/${agent}`, { token: p.viewer.token })).body).toEqual([])
    expect((await p.t.request('GET', `/api/workflows/${agent}/${id}`, { token: p.admin })).status).toBe(404)
    expect((await p.t.request('GET', `/api/workflows/${agent}`, { token: p.outsider.token })).status).toBe(404)
    expect((await save(agent, simple, p.viewer.token, 'v')).status).toBe(403)
    expect((await save(agent, simple, p.admin, 'a')).status).toBe(403)
    expect((await p.t.request('PUT', `/api/workflows/${agent}/${id}`, { token: p.viewer.token, body: { name: 'x', definition: simple } })).status).toBe(403)
    expect((await p.t.request('DELETE', `/api/workflows/${agent}/${id}`, { token: p.outsider.token })).status).toBe(404)
    expect((await p.t.request('GET', `/api/workflows/${agent}`)).status).toBe(401)
  })

  test('a duplicate name in one agent is 409; unknown workflow ids are 404', async () => {
    const agent = await newAgent(p)
    await save(agent, simple)
    expect((await save(agent, simple)).status).toBe(409)
    expect((await p.t.request('PUT', `/api/workflows/${agent}/nope`, { token: p.owner.token, body: { name: 'x', definition: simple } })).status).toBe(404)
    expect((await p.t.request('DELETE', `/api/workflows/${agent}/nope`, { token: p.owner.token })).status).toBe(404)
  })
})

describe('validation on save answers 422 with loc inside the definition', () => {
  let agent = ''
  beforeAll(async () => {
    agent = await newAgent(p)
  })
  const issues = async (definition: unknown) => {
    const res = await save(agent, definition, p.owner.token, `x-${Math.random()}`)
    expect(res.status).toBe(422)
    return res.body.detail as { loc: (string | number)[]; msg: string }[]
  }
  const expectIssue = async (definition: unknown, loc: (string | number)[], msg: RegExp) => {
    const found = await issues(definition)
    expect(found).toContainEqual(expect.objectContaining({ loc: ['body', 'definition', ...loc], msg: expect.stringMatching(msg) }))
  }

  test('the schema itself: missing nodes, bad on_error', async () => {
    expect((await issues({ connections: [] }))[0]!.loc).toEqual(['body', 'definition', 'nodes'])
    await expectIssue({ nodes: [node('a', 'set', { values: {} }, { on_error: 'explode' })], connections: [] }, ['nodes', 0, 'on_error'], /Input should be/)
  })

  test('duplicate node ids', async () => {
    await expectIssue(
      { nodes: [node('a', 'set', { values: {} }), node('a', 'set', { values: {} })], connections: [] },
      ['nodes', 1, 'id'],
      /Duplicate node id 'a'/,
    )
  })

  test('unknown node types', async () => {
    await expectIssue({ nodes: [node('a', 'http')], connections: [] }, ['nodes', 0, 'type'], /Unknown node type/)
  })

  test('edges to unknown nodes and ports', async () => {
    const nodes = [node('a', 'set', { values: {} }), node('c', 'if', { conditions: [{ left: 1, operator: 'exists' }] })]
    await expectIssue({ nodes, connections: [edge('a', 'zz')] }, ['connections', 0, 'to'], /No node 'zz'/)
    await expectIssue({ nodes, connections: [edge('zz', 'a')] }, ['connections', 0, 'from'], /No node 'zz'/)
    await expectIssue({ nodes, connections: [edge('a', 'c', 'yes')] }, ['connections', 0, 'port'], /has ports main, error/)
    await expectIssue({ nodes, connections: [edge('c', 'a')] }, ['connections', 0, 'port'], /must name a port/)
  })

  test('cycles other than map bodies', async () => {
    await expectIssue(
      { nodes: [node('a', 'set', { values: {} }), node('b', 'set', { values: {} })], connections: [edge('a', 'b'), edge('b', 'a')] },
      ['connections', 0],
      /Cycles are only allowed through a map/,
    )
  })

  test('a map body is fine; its done cannot lead back into the body', async () => {
    const ok = {
      nodes: [node('m', 'map', { items: '{{ $json }}' }), node('s', 'set', { values: { v: '{{ $item }}' } }), node('o', 'output', { value: 1 })],
      connections: [edge('m', 's', 'loop'), edge('s', 'm'), edge('m', 'o', 'done')],
    }
    expect((await save(agent, ok, p.owner.token, 'map-ok')).status).toBe(201)
    await expectIssue({ ...ok, connections: [edge('m', 's', 'loop'), edge('s', 'm'), edge('m', 's', 'done')] }, ['connections', 2], /done port/)
  })

  test('every {{ }} parses, located at the parameter', async () => {
    await expectIssue(
      { nodes: [node('a', 'set', { values: { x: '{{ $json. }}' } })], connections: [] },
      ['nodes', 0, 'params', 'values', 'x'],
      /does not parse/,
    )
    await expectIssue(
      { nodes: [node('a', 'set', { values: { x: 'a {{ $json.constructor }}' } })], connections: [] },
      ['nodes', 0, 'params', 'values', 'x'],
      /not allowed/,
    )
    await expectIssue({ nodes: [node('a', 'llm', { prompt: '{{ $json' })], connections: [] }, ['nodes', 0, 'params', 'prompt'], /Unclosed/)
  })

  test('$steps.<id> must name an upstream node', async () => {
    const nodes = [
      node('a', 'set', { values: { x: 1 } }),
      node('b', 'set', { values: { y: '{{ $steps.c.json.z }}' } }),
      node('c', 'set', { values: { z: '{{ $steps.a.json.x }}' } }),
    ]
    await expectIssue({ nodes, connections: [edge('a', 'b'), edge('b', 'c')] }, ['nodes', 1, 'params', 'values', 'y'], /\$steps\.c is not upstream of 'b'/)
    await expectIssue(
      { nodes: [node('a', 'set', { values: { y: '{{ $steps.ghost.json }}' } })], connections: [] },
      ['nodes', 0, 'params', 'values', 'y'],
      /no node 'ghost'/,
    )
  })

  test('map.items must be an expression or a list; $item outside a map is refused', async () => {
    await expectIssue({ nodes: [node('m', 'map', { items: 5 })], connections: [] }, ['nodes', 0, 'params', 'items'], /items must be/)
    await expectIssue(
      { nodes: [node('a', 'set', { values: { v: '{{ $item }}' } })], connections: [] },
      ['nodes', 0, 'params', 'values', 'v'],
      /only inside a map body/,
    )
  })

  test('no gates inside map bodies', async () => {
    const def = {
      nodes: [node('m', 'map', { items: '{{ $json }}' }), node('g', 'approval'), node('s', 'set', { values: {} })],
      connections: [edge('m', 'g', 'loop'), edge('g', 's', 'approved'), edge('s', 'm')],
    }
    await expectIssue(def, ['nodes', 1], /cannot be inside a map body/)
  })

  test('no gates on parallel branches; exclusive if branches are fine', async () => {
    const parallel = {
      nodes: [node('s', 'set', { values: {} }), node('g', 'approval'), node('b', 'set', { values: {} })],
      connections: [edge('s', 'g'), edge('s', 'b')],
    }
    await expectIssue(parallel, ['nodes', 1], /parallel branches/)
    const exclusive = {
      nodes: [node('c', 'if', { conditions: [{ left: '{{ $json.x }}', operator: 'exists' }] }), node('g', 'approval'), node('b', 'set', { values: {} })],
      connections: [edge('c', 'g', 'true'), edge('c', 'b', 'false')],
    }
    expect((await save(agent, exclusive, p.owner.token, 'exclusive')).status).toBe(201)
  })

  test('joins need two inputs; unknown if operators and bad regexes are refused', async () => {
    await expectIssue({ nodes: [node('a', 'set', { values: {} }), node('j', 'join')], connections: [edge('a', 'j')] }, ['nodes', 1], /at least 2/)
    await expectIssue(
      { nodes: [node('c', 'if', { conditions: [{ left: 'a', operator: 'like', right: 'b' }] })], connections: [] },
      ['nodes', 0, 'params', 'conditions', 0, 'operator'],
      /Unknown operator/,
    )
    await expectIssue(
      { nodes: [node('c', 'if', { conditions: [{ left: 'a', operator: 'matches_regex', right: '/(/' }] })], connections: [] },
      ['nodes', 0, 'params', 'conditions', 0, 'right'],
      /Invalid regular expression/,
    )
  })

  test('prototype keys in params and set paths are refused', async () => {
    const body = JSON.parse('{"nodes":[{"id":"a","type":"agentbox.set","params":{"values":{"__proto__.x":1}}}],"connections":[]}')
    await expectIssue(body, ['nodes', 0, 'params', 'values', '__proto__.x'], /not allowed/)
  })
})
