// The kept tool sets: bounded by the bytes they hold (tools, hidden operation tools included, resources and what their
// read callbacks keep), least recently used out first, a hit refreshed.
import { describe, expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { ToolSetCache } from '../../src/modules/toolbox/set-cache.ts'
import { RESOURCE_BYTES, TOOL_BYTES, toolSet, type ToolboxResource } from '../../src/modules/toolbox/tool-set.ts'

const setOf = (name: string, tools: number, hiddenTools = 0, extra: { resources?: ToolboxResource[]; heldBytes?: number } = {}) =>
  toolSet({
    name,
    title: name,
    mode: 'live',
    recordKind: 'mcp_tool',
    tools: Array.from({ length: tools }, (_, i) => ({ name: `t${i}`, description: 'd', inputSchema: Type.Object({}), handler: async () => null })),
    resources: extra.resources ?? [],
    operations: { mode: hiddenTools > 0 ? 'dynamic' : 'per_operation', count: hiddenTools, limit: 64 },
    hiddenTools,
    heldBytes: extra.heldBytes,
  })
/** A budget of `tools` tool weights. */
const budget = (tools: number) => tools * TOOL_BYTES
const surfaceOf = (name: string, tools: number) => setOf(name, tools)

describe('ToolSetCache', () => {
  test('drops the least recently used surfaces once the tools held pass the budget', () => {
    const cache = new ToolSetCache(budget(25))
    cache.set('a', surfaceOf('a', 9)) // weight 10
    cache.set('b', surfaceOf('b', 9)) // 20
    expect(cache.get('a')?.name).toBe('a') // a is now the most recent
    cache.set('c', surfaceOf('c', 9)) // 30 > 25: b goes
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')?.name).toBe('a')
    expect(cache.get('c')?.name).toBe('c')
    expect(cache.size).toBe(2)
  })

  test('a surface larger than the budget is still kept alone (the next request needs it)', () => {
    const cache = new ToolSetCache(budget(25))
    cache.set('small', surfaceOf('small', 1))
    cache.set('huge', surfaceOf('huge', 100))
    expect(cache.get('small')).toBeUndefined()
    expect(cache.get('huge')?.tools.length).toBe(100)
  })

  test('setting a key again replaces it and counts only the new weight', () => {
    const cache = new ToolSetCache(budget(25))
    cache.set('a', surfaceOf('a', 20))
    cache.set('a', surfaceOf('a', 2))
    cache.set('b', surfaceOf('b', 19)) // 3 + 20 = 23
    expect(cache.get('a')?.tools.length).toBe(2)
    expect(cache.get('b')?.tools.length).toBe(19)
  })

  test('a dynamic set weighs the operations behind call_operation, not only its two listed tools', () => {
    const cache = new ToolSetCache(budget(25))
    cache.set('small', surfaceOf('small', 3))
    cache.set('dynamic', setOf('dynamic', 2, 30)) // 2 + 30 + 1 = 33 > 25: small goes
    expect(cache.get('small')).toBeUndefined()
    expect(cache.get('dynamic')?.weight).toBe(33 * TOOL_BYTES)
  })

  test('what resources hold counts: skill bodies in full, a template resource as its list entry (its HTML is read when asked for)', () => {
    const template: ToolboxResource = {
      uri: 'ui://a/op/t',
      name: 't',
      mimeType: 'text/html;profile=mcp-app',
      read: async () => ({ text: 'x'.repeat(1 << 20) }),
    }
    const withTemplate = setOf('t', 1, 0, { resources: [template] })
    expect(withTemplate.weight).toBe(2 * TOOL_BYTES + RESOURCE_BYTES)
    const cache = new ToolSetCache(budget(25))
    cache.set('small', surfaceOf('small', 3))
    cache.set('skills', setOf('skills', 1, 0, { heldBytes: budget(30) })) // 2 tools + 30 tools' worth of skill bodies > 25
    expect(cache.get('small')).toBeUndefined()
    expect(cache.get('skills')?.weight).toBe(budget(32))
  })
})
