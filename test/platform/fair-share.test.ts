// FairShare: work under the budget passes with a turn of the event loop; once the budget is spent, work is followed by
// a rest as long as it took.
import { describe, expect, test } from 'bun:test'
import { FairShare } from '../../src/platform/fair-share.ts'

describe('FairShare', () => {
  test('counts work against the budget: under it false, over it true', () => {
    const share = new FairShare(10)
    expect(share.count(4)).toBe(false)
    expect(share.count(4)).toBe(false)
    expect(share.count(4)).toBe(true)
  })

  test('once the budget is spent, after() rests at least as long as the work (or the minimum)', async () => {
    const share = new FairShare(1)
    share.count(5)
    const started = performance.now()
    await share.after(3, 6)
    expect(performance.now() - started).toBeGreaterThanOrEqual(5.5)
  })

  test('under the budget, after() only hands the event loop a turn', async () => {
    const share = new FairShare(1_000)
    let turned = false
    setImmediate(() => {
      turned = true
    })
    await share.after(1)
    expect(turned).toBe(true)
  })
})
