// KeyedLock: serial per key, concurrent across keys, a failure does not block the queue, nothing kept once idle.
import { describe, expect, test } from 'bun:test'
import { KeyedLock } from '../../src/platform/keyed-lock.ts'

/** A promise the test settles by hand, so the order of events is the test's, not the scheduler's. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

describe('KeyedLock', () => {
  test('work under one key runs one at a time, in the order it was queued', async () => {
    const lock = new KeyedLock()
    const events: string[] = []
    const first = gate()
    const a = lock.run('repo', async () => {
      events.push('a start')
      await first.opened
      events.push('a end')
      return 'a'
    })
    const b = lock.run('repo', async () => {
      events.push('b start')
      return 'b'
    })
    await Bun.sleep(0)
    expect(events).toEqual(['a start'])
    first.open()
    expect(await Promise.all([a, b])).toEqual(['a', 'b'])
    expect(events).toEqual(['a start', 'a end', 'b start'])
  })

  test('work under different keys runs at the same time', async () => {
    const lock = new KeyedLock()
    const held = gate()
    const events: string[] = []
    const a = lock.run('one', async () => {
      events.push('one')
      await held.opened
    })
    const b = lock.run('two', async () => {
      events.push('two')
    })
    await b
    await Bun.sleep(0)
    expect(events).toEqual(['one', 'two'])
    expect(lock.busyKeys).toBe(1) // 'one' is still held; 'two' drained
    held.open()
    await a
  })

  test('a failure rejects its own caller only; the next work still runs', async () => {
    const lock = new KeyedLock()
    const failed = lock.run('k', async () => {
      throw new Error('boom')
    })
    const next = lock.run('k', async () => 'after')
    await expect(failed).rejects.toThrow('boom')
    expect(await next).toBe('after')
  })

  test('keys are forgotten once their queue drains', async () => {
    const lock = new KeyedLock()
    await Promise.all(Array.from({ length: 100 }, (_, i) => lock.run(`k${i % 10}`, async () => i)))
    await Bun.sleep(0)
    expect(lock.busyKeys).toBe(0)
  })
})
