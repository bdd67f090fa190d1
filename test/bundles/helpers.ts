// Shared by the bundle tests: an agent with every part (skills, a workflow with an approval gate, an application),
// bundle uploads, exports read as bytes, and zips read back with fflate (not the product's reader).
import { expect } from 'bun:test'
import { unzipSync } from 'fflate'
import { createHash } from 'node:crypto'
import { petstore, uploadSpec } from '../applications/helpers.ts'
import type { TestServer } from '../helpers/server.ts'

export const skill = (name: string, body = 'Steps.') =>
  ['---', `name: ${name}`, `description: The ${name} skill. Use it for ${name}.`, '---', `# ${name}`, '', body, ''].join('\n')

export const approvalFlow = {
  nodes: [
    { id: 'ask', type: 'agentbox.set', params: { values: { amount: '{{ $json.amount }}' } } },
    { id: 'gate', type: 'agentbox.approval', params: { message: 'Approve {{ $json.amount }}?' } },
    { id: 'done', type: 'agentbox.output', params: { value: { approved: true } } },
  ],
  connections: [
    { from: 'ask', to: 'gate' },
    { from: 'gate', port: 'approved', to: 'done' },
  ],
}

export const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')

/** An agent with two skills, two workflows (one with an approval gate) and the pet store application, published as v1. */
export async function makeAgent(t: TestServer, token: string, name: string, options: { publish?: boolean; document?: unknown } = {}) {
  const created = await t.request('POST', '/api/agents', { token, body: { name, description: `The ${name} agent`, instructions: 'Help with pets.' } })
  expect(created.status).toBe(201)
  for (const s of ['pet-care', 'adoption'])
    expect((await t.request('POST', `/api/agents/${name}/skills`, { token, body: { content: skill(s) } })).status).toBe(201)
  for (const w of ['approve-adoption', 'second-flow'])
    expect((await t.request('POST', `/api/workflows/${name}`, { token, body: { name: w, definition: approvalFlow } })).status).toBe(201)
  const apps = await t.request('GET', '/api/applications', { token })
  if (!apps.body.some((app: { api_name: string }) => app.api_name === 'pet-store'))
    expect((await uploadSpec(t, token, options.document ?? petstore())).status).toBe(201)
  expect(
    (await t.request('PATCH', `/api/agents/${name}`, { token, body: { applications: [{ api_name: 'pet-store', operation_ids: ['listPets'] }] } })).status,
  ).toBe(200)
  if (options.publish !== false) expect((await t.request('POST', `/api/agents/${name}/publish`, { token, body: { note: 'first' } })).status).toBe(201)
}

/** The bundle of a version, as bytes (the test server's request() reads bodies as text). */
export async function exportBytes(
  t: TestServer,
  token: string,
  name: string,
  version?: string,
): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const query = version === undefined ? '' : `?version=${encodeURIComponent(version)}`
  const response = await t.server.fetch(new Request(`http://localhost/api/agents/${name}/export${query}`, { headers: { authorization: `Bearer ${token}` } }))
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
}

/** The bundle's files as text, read by fflate. */
export function filesOf(bytes: Uint8Array): Record<string, string> {
  const files = unzipSync(bytes)
  return Object.fromEntries(Object.entries(files).map(([path, data]) => [path, new TextDecoder().decode(data)]))
}

export async function importBundle(t: TestServer, token: string, bytes: Uint8Array, fields: Record<string, string> = {}, query = '', filename = 'bundle.zip') {
  const form = new FormData()
  form.append('file', new File([bytes as Uint8Array<ArrayBuffer>], filename, { type: 'application/zip' }))
  for (const [key, value] of Object.entries(fields)) form.append(key, value)
  const encoded = new Response(form)
  const contentType = encoded.headers.get('content-type')!
  const body = new Uint8Array(await encoded.arrayBuffer())
  return t.request('POST', `/api/agents/import${query}`, {
    token,
    rawBody: body,
    headers: { 'content-type': contentType, 'content-length': String(body.byteLength) },
  })
}

/** A bundle built from files (path → text), with a manifest listing each with its hash unless `manifest` says otherwise. */
export function manifestFor(files: Record<string, string | Uint8Array>, overrides: Record<string, unknown> = {}): string {
  const hashes = Object.fromEntries(
    Object.entries(files)
      .filter(([path]) => path !== 'manifest.json')
      .map(([path, content]) => [path, sha256(content)]),
  )
  return JSON.stringify({
    format: 'agentbox-bundle',
    format_version: 1,
    agent: 'crafted',
    version: 1,
    exported_at: '2026-01-01T00:00:00.000Z',
    agentbox_version: '0.1.0',
    files: hashes,
    ...overrides,
  })
}
