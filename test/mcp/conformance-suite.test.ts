// The MCP project's own conformance suite (@modelcontextprotocol/conformance) against an agent's live endpoint: its
// generic server scenarios. The suite's client sends no credentials, so a proxy on loopback adds the member's bearer
// token (and keeps Host and Origin as the suite sent them, for the DNS-rebinding scenario). Scenarios that need the
// suite's own fixture tools and resources (test_simple_text, test://…) do not apply to an agent and are not run.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join, resolve } from 'node:path'
import { agentWithEcho, type McpWorld, startMcpWorld } from './helpers.ts'

const SUITE = join(resolve(import.meta.dir, '../..'), 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'logging-set-level', 'dns-rebinding-protection']

let w: McpWorld
let proxy: ReturnType<typeof Bun.serve>
let url = ''

beforeAll(async () => {
  w = await startMcpWorld()
  const agent = await agentWithEcho(w)
  await w.t.request('POST', `/api/agents/${agent}/skills`, {
    token: w.owner.token,
    body: { content: '---\nname: tiny\ndescription: A tiny skill.\n---\nSay hello.\n' },
  })
  await w.t.request('POST', `/api/agents/${agent}/publish`, { token: w.owner.token, body: {} })
  const target = new URL(w.base)
  proxy = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const from = new URL(request.url)
      const headers = new Headers(request.headers)
      headers.set('authorization', `Bearer ${w.viewer.token}`)
      // The server sees the suite's Host and Origin as if it had been reached directly (request.url follows the Host the
      // suite sent, so the proxy's own address is named, not read from it).
      for (const name of ['host', 'origin']) {
        const value = headers.get(name)
        if (value) headers.set(name, value.replace(`127.0.0.1:${proxy.port}`, target.host))
      }
      return fetch(`${w.base}${from.pathname}${from.search}`, { method: request.method, headers, body: request.body, redirect: 'manual' })
    },
  })
  url = `http://127.0.0.1:${proxy.port}/agent/${agent}/mcp`
})
afterAll(async () => {
  await proxy.stop(true)
  await w.stop()
})

describe('MCP conformance suite, generic server scenarios', () => {
  for (const scenario of SCENARIOS) {
    test(scenario, async () => {
      const run = Bun.spawn([process.execPath, SUITE, 'server', '--url', url, '--scenario', scenario], { stdout: 'pipe', stderr: 'pipe' })
      const [output, errors, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited])
      const summary = output.match(/Passed: (\d+)\/(\d+), (\d+) failed/)
      expect(summary, `${output}\n${errors}`).not.toBeNull()
      expect({ code, failed: Number(summary![3]), passed: Number(summary![1]) }).toEqual({ code: 0, failed: 0, passed: Number(summary![2]) })
    }, 30_000)
  }
})
