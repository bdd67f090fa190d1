// Outbound safety at the API (CONTRACT §12): an application's server may name any address, but a call is refused
// before any connection when the destination is loopback, private, link-local, CGNAT, ULA or a mapped form of them,
// however it is spelled or whatever name resolves to it. The outbound fetch here is a spy: a refused call never
// reaches it, and no packet leaves the process.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startWithPeople, type People } from '../helpers/people.ts'
import { uploadSpec } from './helpers.ts'

const RESOLVES: Record<string, string[]> = {
  'evil.example': ['127.0.0.1'],
  'mixed.example': ['93.184.215.14', '10.0.0.1'],
  'metadata.example': ['fd00:ec2::254'],
  'api.example.com': ['93.184.215.14'],
}
const reached: { url: string; host: string | null }[] = []
let p: People

const oneOperation = (title: string, url: string) => ({
  openapi: '3.1.0',
  info: { title, version: '1' },
  servers: [{ url }],
  paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } } },
})

const FORBIDDEN = [
  'http://127.0.0.1:9/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://127.1/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::1]/',
  'http://169.254.169.254/latest',
  'http://100.100.100.200/',
  'http://[fd00:ec2::254]/',
  'http://0.0.0.0/',
  'http://localhost/',
  'http://evil.example/',
  'http://mixed.example/',
  'http://metadata.example/',
]

beforeAll(async () => {
  p = await startWithPeople({
    outbound: {
      resolve: async (host) => {
        const answer = RESOLVES[host]
        if (!answer) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
        return answer
      },
      fetch: async (url, init) => {
        reached.push({ url, host: new Headers(init.headers).get('host') })
        return Response.json({ pong: true })
      },
    },
  })
  for (const [index, url] of FORBIDDEN.entries())
    expect((await uploadSpec(p.t, p.admin, oneOperation(`bad ${index}`, url), { global_spec: 'true' })).status).toBe(201)
  await uploadSpec(p.t, p.admin, oneOperation('public', 'https://api.example.com/v1'), { global_spec: 'true' })
  await uploadSpec(p.t, p.admin, oneOperation('nowhere', 'https://nowhere.example/'), { global_spec: 'true' })
  await uploadSpec(p.t, p.admin, oneOperation('relative', '/v1'), { global_spec: 'true' })
})
afterAll(() => p.t.close())

const ping = (apiName: string) => p.t.request('POST', `/api/applications/${apiName}/operations/ping/execute`, { token: p.owner.token, body: {} })

describe('refused before connecting', () => {
  test.each(FORBIDDEN.map((url, index) => [url, index]))('%s → 502 Destination not allowed, nothing sent', async (_url, index) => {
    const res = await ping(`bad-${index}`)
    expect(res.status).toBe(502)
    expect(res.body).toEqual({ detail: 'Destination not allowed' })
    expect(reached).toEqual([])
  })

  test('a refused call is recorded as a failed api_action; a relative server URL is a 400 asking for base_url', async () => {
    const row = (await p.t.sql.get("SELECT is_error FROM interactions WHERE api_title = 'bad 0' ORDER BY id DESC LIMIT 1")) as {
      is_error: number
    }
    expect(row.is_error).toBe(1)
    const relative = await ping('relative')
    expect(relative.status).toBe(400)
    expect(relative.body.detail).toContain('base_url')
  })
})

describe('allowed destinations', () => {
  test('a public name is resolved once and the connection goes to that address, with the original Host', async () => {
    const res = await ping('public')
    expect(res.status).toBe(200)
    expect(res.body.body).toEqual({ pong: true })
    expect(reached.at(-1)).toEqual({ url: 'https://93.184.215.14/v1/ping', host: 'api.example.com' })
  })

  test('a name that does not resolve is a 502 Destination unreachable', async () => {
    const res = await ping('nowhere')
    expect(res.status).toBe(502)
    expect(res.body).toEqual({ detail: 'Destination unreachable' })
  })

  test("the admin's outbound_allow opens a private destination at once, and closing it refuses again", async () => {
    const count = reached.length
    await p.t.request('PUT', '/api/org/settings', { token: p.admin, body: { outbound_allow: ['127.0.0.1:9'] } })
    expect((await ping('bad-0')).status).toBe(200)
    expect(reached.length).toBe(count + 1)
    expect((await ping('bad-1')).status).toBe(502)
    await p.t.request('PUT', '/api/org/settings', { token: p.admin, body: { outbound_allow: [] } })
    expect((await ping('bad-0')).status).toBe(502)
  })
})

describe('time-outs', () => {
  test('an upstream that does not answer in time is a 504', async () => {
    const slow = await startWithPeople({
      outbound: {
        resolve: async () => ['93.184.215.14'],
        // The time-out fires as soon as the request is on its way; the upstream never answers.
        startTimer: (_ms, fire) => {
          const timer = setTimeout(fire, 1)
          return () => clearTimeout(timer)
        },
        fetch: (_url, init) => new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason))),
      },
    })
    try {
      await uploadSpec(slow.t, slow.admin, oneOperation('slow', 'https://slow.example.com/'), { api_name: 'slow' })
      const res = await slow.t.request('POST', '/api/applications/slow/operations/ping/execute', { token: slow.admin, body: {} })
      expect(res.status).toBe(504)
      expect(res.body.detail).toContain('30 s')
    } finally {
      await slow.t.close()
    }
  })
})
