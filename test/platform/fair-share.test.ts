// FairShare: work under the budget, or with nobody else coming, goes on; once the budget is spent and others came,
// work is followed by a rest as long as it took. EventLoopTurns: a turn only when due. requestTraffic counts the
// requests the server started, in memory a worker reads.
import { describe, expect, test } from 'bun:test'
import { EventLoopTurns, FairShare } from '../../src/platform/fair-share.ts'
import { requestTraffic } from '../../src/platform/http/traffic.ts'
import { startTestServer } from '../helpers/server.ts'

describe('FairShare', () => {
  /** A fake count of requests started, moved by hand. */
  const traffic = () => {
    let started = 0
    return { started: () => started, come: (n: number) => (started += n) }
  }

  test('rests only once the budget is spent and others came since the last job; a lone loop never does', () => {
    const t = traffic()
    const share = new FairShare(10, t.started)
    // A client looping alone: one request started per job.
    for (let job = 0; job < 5; job++) {
      t.come(1)
      expect(share.count(4)).toBe(false)
      share.done()
    }
    // Now others come: over the budget (20 ms of work counted, decaying slowly), it is time to rest.
    t.come(3)
    expect(share.othersCame()).toBe(true)
    expect(share.count(4)).toBe(true)
    share.done()
    // Under the budget nothing rests, others or not.
    const fresh = new FairShare(1_000, t.started)
    t.come(5)
    expect(fresh.count(4)).toBe(false)
  })

  test('others are seen across the wrap of the Int32 request count', () => {
    let started = 2_147_483_647
    const share = new FairShare(10, () => started)
    share.done()
    started = -2_147_483_646 // three requests later, wrapped
    expect(share.othersCame()).toBe(true)
    started = -2_147_483_648 // one request later: the caller's own
    expect(share.othersCame()).toBe(false)
  })

  test('when it is time to, after() rests at least as long as the work (or the minimum) and says so', async () => {
    const t = traffic()
    const share = new FairShare(1, t.started)
    t.come(2)
    share.count(5)
    const started = performance.now()
    expect(await share.after(3, 6)).toBe(true)
    expect(performance.now() - started).toBeGreaterThanOrEqual(5.5)
  })

  test('otherwise after() does not rest, and says so', async () => {
    const t = traffic()
    const share = new FairShare(1, t.started)
    t.come(1)
    share.count(5)
    const started = performance.now()
    expect(await share.after(50)).toBe(false)
    expect(performance.now() - started).toBeLessThan(50)
  })
})

describe('EventLoopTurns', () => {
  test('a turn only once the time is due, then not again until it is due again', async () => {
    const turns = new EventLoopTurns(5)
    let turned = false
    const mark = () => {
      turned = true
    }
    setImmediate(mark)
    await turns.maybe()
    expect(turned).toBe(false)
    await Bun.sleep(6)
    turned = false
    setImmediate(mark)
    await turns.maybe()
    expect(turned).toBe(true)
    turned = false
    setImmediate(mark)
    await turns.maybe()
    expect(turned).toBe(false)
  })
})

describe('requestTraffic', () => {
  test('counts every request the server starts, in memory a worker reads', async () => {
    const t = await startTestServer()
    try {
      const view = new Int32Array(requestTraffic.buffer)
      const before = requestTraffic.started()
      for (let i = 0; i < 3; i++) await t.request('GET', '/api/health/live')
      expect(requestTraffic.started() - before).toBe(3)
      expect(Atomics.load(view, 0)).toBe(requestTraffic.started())
    } finally {
      t.close()
    }
  })
})
