// Hostile and broken bundles: each is a 422 on ["body","file"] and nothing is written (no agent, no application, no audit entry).
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { petstore } from '../applications/helpers.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { craftBundle } from './craft-bundle.ts'
import { approvalFlow, importBundle, manifestFor, skill } from './helpers.ts'
import { craftZip, type CraftEntry } from './zip-craft.ts'

let t: TestServer
let admin: string

beforeAll(async () => {
  t = await startTestServer()
  ;({ adminToken: admin } = await t.provision())
})
afterAll(() => t.close())

/** Audit entries of agents and applications the baseline import wrote; every refused bundle must add none. */
let expectedAudit = 0
const auditedWrites = async () =>
  ((await t.request('GET', '/api/audit', { token: admin })).body as { action: string }[]).filter((entry) => /^(agent|application)\./.test(entry.action)).length

/** Nothing an import writes exists: checked after every refused bundle. */
afterEach(async () => {
  expect((await t.request('GET', '/api/agents', { token: admin })).body).toEqual([])
  expect((await t.request('GET', '/api/applications', { token: admin })).body).toEqual([])
  expect(await auditedWrites()).toBe(expectedAudit)
})

/** A valid bundle's files: one skill, one workflow with a gate, no application. */
function validFiles(): Record<string, string> {
  return {
    'agent.json': JSON.stringify({ description: 'Crafted', instructions: 'Help.', applications: [], skills: ['helper'], workflows: ['flow-1'] }),
    'skills/helper/SKILL.md': skill('helper'),
    'workflows/flow-1.json': JSON.stringify({ id: 'flow-1', name: 'Flow', definition: approvalFlow }),
  }
}

/** The same files as raw zip entries (the manifest made to match), for archives only a hand-made zip can be. */
function craftedEntries(extra: CraftEntry[] = []): CraftEntry[] {
  const files = validFiles()
  return [...Object.entries(files).map(([name, data]) => ({ name, data })), { name: 'manifest.json', data: manifestFor(files) }, ...extra]
}

async function refused(bytes: Uint8Array, message: RegExp, type = 'bundle_unsafe') {
  const res = await importBundle(t, admin, bytes)
  expect(res.status).toBe(422)
  expect(res.body.detail[0].loc).toEqual(['body', 'file'])
  expect(res.body.detail.map((issue: { msg: string }) => issue.msg).join('\n')).toMatch(message)
  expect(res.body.detail[0].type).toBe(type)
  return res.body.detail
}

describe('archives refused before anything is read', () => {
  test('a valid crafted bundle is accepted (the baseline the others break), then removed', async () => {
    const res = await importBundle(t, admin, craftZip(craftedEntries()))
    expect(res.status).toBe(201)
    expect((await t.request('DELETE', '/api/agents/crafted', { token: admin })).status).toBe(204)
    expectedAudit = await auditedWrites()
    expect(expectedAudit).toBe(1)
  })

  test('path traversal (..)', () => refused(craftZip(craftedEntries([{ name: 'skills/../../etc/passwd', data: 'x' }])), /climb out/))
  test('an absolute path', () => refused(craftZip(craftedEntries([{ name: '/etc/passwd', data: 'x' }])), /Absolute paths/))
  test('a drive letter', () => refused(craftZip(craftedEntries([{ name: 'C:/windows/x', data: 'x' }])), /Absolute paths/))
  test('a backslash path', () => refused(craftZip(craftedEntries([{ name: '..\\..\\x', data: 'x' }])), /not allowed/))
  test('a symbolic link (Unix mode 120777 in the external attributes)', () =>
    refused(craftZip(craftedEntries([{ name: 'skills/link/SKILL.md', data: '/etc/passwd', mode: 0o120777 }])), /Links are not allowed/))
  test('a device file', () => refused(craftZip(craftedEntries([{ name: 'dev', data: '', mode: 0o020644 }])), /Special files/))
  test('the same name twice', () => refused(craftZip(craftedEntries([{ name: 'agent.json', data: '{}' }])), /holds agent\.json twice/))
  test('an entry name that is not UTF-8', () => refused(craftZip(craftedEntries([{ name: new Uint8Array([0x66, 0xff, 0xfe]), data: 'x' }])), /not valid UTF-8/))
  test('an encrypted entry', () => refused(craftZip(craftedEntries([{ name: 'secret', data: 'x', flags: 1 }])), /Encrypted/))
  test('a compression method other than stored or deflate', () => refused(craftZip(craftedEntries([{ name: 'odd', data: 'x', method: 12 }])), /method 12/))
  test('two entries sharing the same bytes (overlapping entries)', () => refused(craftZip(craftedEntries([{ name: 'again.json', sameDataAs: 0 }])), /overlap/))

  test('more than 2,000 entries', async () => {
    const many = Array.from({ length: 2001 }, (_, i) => ({ name: `f/${i}`, data: '', method: 0 }))
    await refused(craftZip(many), /2001 entries; at most 2000/)
  })

  test('a zip bomb whose header claims 100 bytes: stopped one byte past what it declares', async () => {
    const bomb = { name: 'skills/bomb/SKILL.md', data: new Uint8Array(60 * 1024 * 1024), declaredSize: 100 }
    const bytes = craftZip(craftedEntries([bomb]))
    expect(bytes.byteLength).toBeLessThan(200 * 1024)
    const detail = await refused(bytes, /skills\/bomb\/SKILL\.md is damaged/)
    expect(detail[0].ctx.path).toBe('skills/bomb/SKILL.md')
  })

  test('a zip bomb whose header claims 40 MiB (under the limit): the inflated bytes are counted and it stops at 50 MiB', async () => {
    const bomb = { name: 'skills/bomb/SKILL.md', data: new Uint8Array(60 * 1024 * 1024), declaredSize: 40 * 1024 * 1024 }
    await refused(craftZip(craftedEntries([bomb])), /more than 50 MiB once uncompressed/)
  })

  test('many entries that each pass but together exceed 50 MiB', async () => {
    const parts = Array.from({ length: 6 }, (_, i) => ({ name: `big/${i}`, data: new Uint8Array(9 * 1024 * 1024) }))
    await refused(craftZip(craftedEntries(parts)), /more than 50 MiB/)
  })

  test('a header that declares more than 50 MiB is refused without inflating', () =>
    refused(craftZip(craftedEntries([{ name: 'big', data: 'x', declaredSize: 51 * 1024 * 1024 }])), /more than 50 MiB/))

  test('a size or CRC that does not match the data', async () => {
    await refused(craftZip(craftedEntries([{ name: 'x', data: 'hello', declaredSize: 4 }])), /damaged/)
    await refused(craftZip(craftedEntries([{ name: 'x', data: 'hello', crc: 1 }])), /damaged/)
  })

  test('invalid deflate data', async () => {
    const entries = craftedEntries([{ name: 'x', data: new Uint8Array([0xff, 0xff, 0xff, 0xff]), method: 0 }])
    const bytes = craftZip(entries.map((entry) => (entry.name === 'x' ? { ...entry, method: 0 } : entry)))
    // Rewrite the stored entry's method to deflate in both headers, so its bytes are read as (invalid) deflate data.
    const view = Buffer.from(bytes)
    let at = view.indexOf(Buffer.from('x'), 0)
    for (; at >= 0; at = view.indexOf(Buffer.from([0x50, 0x4b]), at + 1)) {
      const signature = view.readUInt32LE(at)
      if (signature === 0x04034b50 && view.toString('utf8', at + 30, at + 31) === 'x' && view.readUInt16LE(at + 26) === 1) view.writeUInt16LE(8, at + 8)
      if (signature === 0x02014b50 && view.toString('utf8', at + 46, at + 47) === 'x' && view.readUInt16LE(at + 28) === 1) view.writeUInt16LE(8, at + 10)
    }
    await refused(new Uint8Array(view), /not valid deflate data|damaged/)
  })

  test('not a zip at all; bytes after the archive', async () => {
    await refused(new TextEncoder().encode('{"not":"a zip"}'), /not a zip archive/)
    await refused(craftZip(craftedEntries(), { trailing: new Uint8Array(10) }), /not a zip archive/)
  })

  test('more than 10 MiB compressed', async () => {
    const bytes = craftZip(craftedEntries([{ name: 'noise', data: randomBytes(10 * 1024 * 1024), method: 0 }]))
    await refused(bytes, /at most 10 MiB/, 'bundle_too_large')
  })

  test('a body past the upload limit is 413 before it is read', async () => {
    const res = await t.request('POST', '/api/agents/import', {
      token: admin,
      rawBody: 'x',
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(11 * 1024 * 1024) },
    })
    expect(res.status).toBe(413)
  })
})

describe('contents refused', () => {
  test('a file whose SHA-256 does not match the manifest', async () => {
    const files = validFiles()
    const manifest = JSON.parse(manifestFor(files))
    manifest.files['skills/helper/SKILL.md'] = '0'.repeat(64)
    const detail = await refused(craftBundle(files, {}, JSON.stringify(manifest)), /SHA-256 does not match/, 'hash_mismatch')
    expect(detail[0].ctx.path).toBe('skills/helper/SKILL.md')
  })

  test('the manifest names a file the archive does not hold; a file the manifest does not name', async () => {
    const files = validFiles()
    await refused(
      craftBundle(files, { files: { ...JSON.parse(manifestFor(files)).files, 'skills/ghost/SKILL.md': 'a'.repeat(64) } }),
      /does not hold it/,
      'file_missing',
    )
    const unlisted = craftZip([...craftedEntries(), { name: 'extra.txt', data: 'x' }])
    await refused(unlisted, /not listed in manifest\.json/, 'bundle_invalid')
  })

  test('no manifest; another format; a format_version from a newer server', async () => {
    await refused(craftZip(Object.entries(validFiles()).map(([name, data]) => ({ name, data }))), /no manifest\.json/, 'bundle_invalid')
    await refused(craftBundle(validFiles(), { format: 'n8n-package' }), /not an Agentbox bundle/, 'bundle_invalid')
    const newer = await refused(craftBundle(validFiles(), { format_version: 2 }), /newer Agentbox/, 'bundle_version')
    expect(newer[0].ctx).toMatchObject({ format_version: 2, supported: 1 })
  })

  test('a JSON file that is not UTF-8, or not JSON', async () => {
    await refused(craftBundle({ ...validFiles(), 'agent.json': new Uint8Array([0x7b, 0xff, 0x7d]) }), /agent\.json: not valid UTF-8/, 'bundle_invalid')
    await refused(craftBundle({ ...validFiles(), 'workflows/flow-1.json': '{"id": "flow-1", ' }), /workflows\/flow-1\.json: invalid JSON/, 'json_invalid')
    await refused(craftBundle({ ...validFiles(), 'agent.json': `${'['.repeat(200)}${']'.repeat(200)}` }), /nested deeper/, 'json_invalid')
  })

  test('agent.json checked as POST /api/agents checks the fields: every problem at once', async () => {
    const agent = { description: '', instructions: 'x'.repeat(4001), skills: ['helper'], workflows: ['flow-1'] }
    const res = await importBundle(t, admin, craftBundle({ ...validFiles(), 'agent.json': JSON.stringify(agent) }))
    expect(res.status).toBe(422)
    expect(res.body.detail.map((issue: { ctx: { loc: unknown[] } }) => issue.ctx.loc)).toEqual([['description'], ['instructions']])
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'string_too_short', ctx: { path: 'agent.json' } })
  })

  test('a skill that does not validate, or whose folder is not its name: skill_invalid with its code', async () => {
    const files = { ...validFiles(), 'skills/helper/SKILL.md': '---\nname: Helper!\n---\n' }
    const res = await importBundle(t, admin, craftBundle(files))
    expect(res.status).toBe(422)
    expect(
      res.body.detail.every((issue: { type: string; ctx: { path: string } }) => issue.type === 'skill_invalid' && issue.ctx.path === 'skills/helper/SKILL.md'),
    ).toBe(true)
    const moved = { ...validFiles(), 'skills/helper/SKILL.md': skill('other-name') }
    const misnamed = await importBundle(t, admin, craftBundle(moved))
    expect(misnamed.status).toBe(422)
    expect(misnamed.body.detail[0].ctx.code).toBeTruthy()
  })

  test('a workflow checked as the API checks it: unknown node type, broken expression, a name used twice, an id that is not its file name', async () => {
    const unknownType = { nodes: [{ id: 'a', type: 'agentbox.nope' }], connections: [] }
    const badExpression = { nodes: [{ id: 'b', type: 'agentbox.set', params: { values: { x: '{{ 1 + }}' } } }], connections: [] }
    const files = {
      ...validFiles(),
      'agent.json': JSON.stringify({ description: 'd', instructions: 'i', skills: ['helper'], workflows: ['flow-1', 'flow-2', 'flow-3', 'flow-4'] }),
      'workflows/flow-2.json': JSON.stringify({ id: 'flow-2', name: 'Unknown type', definition: unknownType }),
      'workflows/flow-3.json': JSON.stringify({ id: 'other', name: 'Flow', definition: approvalFlow }),
      'workflows/flow-4.json': JSON.stringify({ id: 'flow-4', name: 'Bad expression', definition: badExpression }),
    }
    const res = await importBundle(t, admin, craftBundle(files))
    expect(res.status).toBe(422)
    const messages = res.body.detail.map((issue: { msg: string }) => issue.msg).join('\n')
    expect(messages).toContain('workflows/flow-2.json: definition.nodes.0.type')
    expect(messages).toContain('workflows/flow-4.json: definition.nodes.0.params')
    expect(messages).toContain('its id should be "flow-3"')
    expect(messages).toContain("is named 'Flow'")
  })

  test('agent.json and the files disagree: a listed skill without its file, a workflow file it does not list', async () => {
    const files = {
      ...validFiles(),
      'agent.json': JSON.stringify({ description: 'd', instructions: 'i', skills: ['helper', 'ghost'], workflows: [] }),
    }
    const res = await importBundle(t, admin, craftBundle(files))
    expect(res.status).toBe(422)
    const messages = res.body.detail.map((issue: { msg: string }) => issue.msg)
    expect(messages).toContain("agent.json: skills lists 'ghost', but skills/ghost/SKILL.md is not in the archive")
    expect(messages).toContain('workflows/flow-1.json: agent.json does not list it in workflows')
  })

  test('an application document that is not a valid description: spec_invalid at its path', async () => {
    const files = {
      ...validFiles(),
      'agent.json': JSON.stringify({ description: 'd', instructions: 'i', applications: [{ api_name: 'broken' }], skills: ['helper'], workflows: ['flow-1'] }),
      'applications/broken/openapi.json': JSON.stringify({ openapi: '3.0.0', paths: {} }),
    }
    const res = await importBundle(t, admin, craftBundle(files))
    expect(res.status).toBe(422)
    expect(res.body.detail[0]).toMatchObject({ type: 'spec_invalid', ctx: { path: 'applications/broken/openapi.json', pointer: '/info' } })
  })

  test('an application agent.json does not use, one it uses but the bundle lacks, a file no part knows', async () => {
    const files = {
      ...validFiles(),
      'agent.json': JSON.stringify({ description: 'd', instructions: 'i', applications: [{ api_name: 'absent' }], skills: ['helper'], workflows: ['flow-1'] }),
      'applications/pet-store/openapi.json': JSON.stringify(petstore()),
      'applications/pet-store/templates/listPets/t.html': '<p>hi</p>',
    }
    const res = await importBundle(t, admin, craftBundle(files))
    expect(res.status).toBe(422)
    const messages = res.body.detail.map((issue: { msg: string }) => issue.msg)
    expect(messages).toContain("agent.json: applications names 'absent', which the bundle does not carry")
    expect(messages).toContain('applications/pet-store: agent.json does not use this application')
    expect(messages).toContain('applications/pet-store/templates/listPets/t.html: this server does not know what this file is')
  })

  test('a long list of problems is cut at 50 entries, the last saying how many more', async () => {
    const files: Record<string, string> = { ...validFiles() }
    for (let i = 0; i < 80; i++) files[`unknown/${i}.txt`] = 'x'
    const res = await importBundle(t, admin, craftBundle(files))
    expect(res.status).toBe(422)
    expect(res.body.detail).toHaveLength(50)
    expect(res.body.detail[49].msg).toBe('…and 31 more problems')
  })
})
