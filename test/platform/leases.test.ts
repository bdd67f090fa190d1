// Leases (platform/cluster/leases.ts) on the server's own database, SQLite or PostgreSQL: taken by one holder at a
// time, expired by the injected clock (never by waiting), renewed, released only by their holder, taken inside a
// transaction only if it commits, and waited for in order. A second instance is a second Leases object on the same
// database with an instance id of its own.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { LEASE_TTL_MS, Leases } from '../../src/platform/cluster/index.ts'
import { inTransaction } from '../../src/platform/db/transaction.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let keys = 0
const freshKey = () => `test:${++keys}`

beforeAll(async () => {
  t = await startTestServer()
})
afterAll(async () => {
  await t.close()
})

/** Another instance on the same database (PostgreSQL's rules: only expiry frees another instance's lease). */
const instance = (id: string) => new Leases({ db: t.server.database.db, clock: t.clock, logger: t.log, instanceId: id, soleInstance: false })

const row = (key: string) =>
  t.sql.get<{ holder: string; instance_id: string; expires_at: number }>('SELECT holder, instance_id, expires_at FROM leases WHERE key = ?', key)

describe('taking and releasing', () => {
  test('one holder at a time; released, the key is free again and its row gone', async () => {
    const [a, b] = [instance('a'), instance('b')]
    const key = freshKey()
    const held = await a.tryTake(key)
    expect(held).not.toBeNull()
    expect(await a.tryTake(key)).toBeNull()
    expect(await b.tryTake(key)).toBeNull()
    expect(await b.holderOf(key)).toBe('a')
    expect(Number((await row(key))!.expires_at)).toBe(t.clock.now() + LEASE_TTL_MS)
    await held!.release()
    expect(await row(key)).toBeNull()
    const next = await b.tryTake(key)
    expect(next).not.toBeNull()
    await next!.release()
  })

  test('an expired lease (its instance died) is taken by another; the old holder can neither renew nor release it', async () => {
    const [a, b] = [instance('a'), instance('b')]
    const key = freshKey()
    const old = (await a.tryTake(key))!
    t.clock.advance(LEASE_TTL_MS - 1)
    expect(await b.tryTake(key)).toBeNull()
    t.clock.advance(1)
    const taken = await b.tryTake(key)
    expect(taken).not.toBeNull()
    expect((await row(key))!.instance_id).toBe('b')
    expect(await old.renew()).toBe(false)
    await old.release()
    expect((await row(key))!.instance_id).toBe('b')
    await taken!.release()
  })

  test('a renewed lease lasts a time to live from the renewal', async () => {
    const [a, b] = [instance('a'), instance('b')]
    const key = freshKey()
    const held = (await a.tryTake(key))!
    t.clock.advance(LEASE_TTL_MS - 1)
    expect(await held.renew()).toBe(true)
    t.clock.advance(LEASE_TTL_MS - 1)
    expect(await b.tryTake(key)).toBeNull()
    t.clock.advance(1)
    expect(await b.tryTake(key)).not.toBeNull()
    await held.release()
  })

  test('taken inside a transaction that rolls back: no lease', async () => {
    const a = instance('a')
    const key = freshKey()
    const failed = inTransaction(t.server.database.db, async (trx) => {
      expect(await a.tryTake(key, trx)).not.toBeNull()
      throw new Error('rolled back')
    })
    await expect(failed).rejects.toThrow('rolled back')
    expect(await row(key)).toBeNull()
    const held = await instance('b').tryTake(key)
    expect(held).not.toBeNull()
    await held!.release()
  })

  test("one process owning the database (SQLite's rule) takes a lease an earlier process left, unexpired", async () => {
    const key = freshKey()
    await instance('earlier process').tryTake(key)
    const sole = new Leases({ db: t.server.database.db, clock: t.clock, logger: t.log, instanceId: 'this process', soleInstance: true })
    const held = await sole.tryTake(key)
    expect(held).not.toBeNull()
    expect((await row(key))!.instance_id).toBe('this process')
    await held!.release()
  })

  test.skipIf(ON_POSTGRES)("the server's own leases on SQLite follow the one-process rule", async () => {
    const key = freshKey()
    await instance('a process that died').tryTake(key)
    const held = await t.server.cluster.leases.tryTake(key)
    expect(held).not.toBeNull()
    await held!.release()
  })

  test.skipIf(!ON_POSTGRES)("the server's own leases on PostgreSQL leave another instance's unexpired lease alone", async () => {
    const key = freshKey()
    const other = (await instance('another instance').tryTake(key))!
    expect(await t.server.cluster.leases.tryTake(key)).toBeNull()
    await other.release()
    const held = await t.server.cluster.leases.tryTake(key)
    expect(held).not.toBeNull()
    await held!.release()
  })
})

describe('run: waiting for the lease', () => {
  test('work waits while another instance holds the key, says so once in the log, and runs once it is released', async () => {
    const [a, b] = [instance('a'), instance('b')]
    const key = freshKey()
    const held = (await a.tryTake(key))!
    const order: string[] = []
    const waiting = b.run(key, async () => {
      order.push('b ran')
      return (await row(key))!.instance_id
    })
    const said = () => t.log.lines.filter((line) => line.msg === 'waiting for a lease another instance holds' && line.lease === key)
    // The event the test waits for: b found the key held and started waiting (no time passes by assumption).
    while (said().length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(said()[0]).toMatchObject({ level: 'info', holder_instance: 'a' })
    order.push('a released')
    await held.release()
    expect(await waiting).toBe('b')
    expect(order).toEqual(['a released', 'b ran'])
    expect(said()).toHaveLength(1)
    expect(await row(key)).toBeNull()
  })

  test("an expired holder's lease is taken by a waiter (forced expiry in the database)", async () => {
    const [a, b] = [instance('a'), instance('b')]
    const key = freshKey()
    await a.tryTake(key)
    const waiting = b.run(key, async () => 'ran')
    while (!t.log.lines.some((line) => line.msg === 'waiting for a lease another instance holds' && line.lease === key))
      await new Promise((resolve) => setTimeout(resolve, 5))
    await t.sql.run('UPDATE leases SET expires_at = ? WHERE key = ?', t.clock.now(), key)
    expect(await waiting).toBe('ran')
  })

  test('work of one instance under one key runs one at a time, in order; a failure releases the lease', async () => {
    const a = instance('a')
    const key = freshKey()
    const order: string[] = []
    let inside = 0
    const step = (name: string, fail = false) =>
      a.run(key, async () => {
        inside++
        expect(inside).toBe(1)
        await new Promise((resolve) => setImmediate(resolve))
        order.push(name)
        inside--
        if (fail) throw new Error(`${name} failed`)
        return name
      })
    const results = await Promise.allSettled([step('one'), step('two', true), step('three')])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(order).toEqual(['one', 'two', 'three'])
    expect(await row(key)).toBeNull()
  })
})
