// The kept surfaces: bounded by the tools they hold, least recently used out first, a hit refreshed.
import { describe, expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { buildSurface } from '../../src/modules/mcp/surface.ts'
import { SurfaceCache } from '../../src/modules/mcp/surface-cache.ts'

const surfaceOf = (name: string, tools: number) =>
  buildSurface(
    { name, title: name },
    Array.from({ length: tools }, (_, i) => ({ name: `t${i}`, description: 'd', inputSchema: Type.Object({}), handler: async () => null })),
  )

describe('SurfaceCache', () => {
  test('drops the least recently used surfaces once the tools held pass the budget', () => {
    const cache = new SurfaceCache(25)
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
    const cache = new SurfaceCache(25)
    cache.set('small', surfaceOf('small', 1))
    cache.set('huge', surfaceOf('huge', 100))
    expect(cache.get('small')).toBeUndefined()
    expect(cache.get('huge')?.tools.size).toBe(100)
  })

  test('setting a key again replaces it and counts only the new weight', () => {
    const cache = new SurfaceCache(25)
    cache.set('a', surfaceOf('a', 20))
    cache.set('a', surfaceOf('a', 2))
    cache.set('b', surfaceOf('b', 19)) // 3 + 20 = 23
    expect(cache.get('a')?.tools.size).toBe(2)
    expect(cache.get('b')?.tools.size).toBe(19)
  })
})
