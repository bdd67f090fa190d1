// compileOnce: Kysely builds and compiles a query once; each run swaps the values, on the database or in a transaction.
// readTogether: several reads, one round trip on PostgreSQL, the same rows as each read alone.
import { afterAll, describe, expect, test } from 'bun:test'
import type { Kysely } from 'kysely'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compileOnce, readTogether } from '../../src/platform/db/compiled-query.ts'
import { openDatabase } from '../../src/platform/db/database.ts'
import { dropTestDatabase, emptyTestDatabase, testSql } from '../helpers/database.ts'

interface Db {
  things: { id: string; owner: string; name: string }
}

const dir = mkdtempSync(join(tmpdir(), 'agentbox-compiled-'))
// On the suite's database (a fresh one on PostgreSQL): the compiled SQL is that dialect's.
const handle = openDatabase(await emptyTestDatabase(dir))
const db = handle.db as unknown as Kysely<Db>
const run = testSql(handle.db, handle.kind)
await run.run('CREATE TABLE things (id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL)')
await run.run("INSERT INTO things VALUES ('a', 'ann', 'Apple'), ('b', 'bob', 'Banana'), ('c', 'ann', 'Cherry')")
afterAll(async () => {
  await handle.close()
  rmSync(dir, { recursive: true, force: true })
  await dropTestDatabase(dir)
})

describe('compileOnce', () => {
  test('runs with each call’s values, whatever order the parameters take in the SQL', async () => {
    let builds = 0
    const find = compileOnce<Db, 'owner' | 'name', { id: string }>(['owner', 'name'], (kysely, p) => {
      builds++
      return kysely.selectFrom('things').select('id').where('name', '!=', p.name).where('owner', '=', p.owner).orderBy('id')
    })
    expect(await find(db, { owner: 'ann', name: 'Apple' })).toEqual([{ id: 'c' }])
    expect(await find(db, { name: 'Zzz', owner: 'ann' })).toEqual([{ id: 'a' }, { id: 'c' }])
    expect(await find(db, { owner: 'nobody', name: '' })).toEqual([])
    expect(builds).toBe(1)
  })

  test('runs inside a transaction and sees its writes', async () => {
    const byId = compileOnce<Db, 'id', { name: string }>(['id'], (kysely, p) => kysely.selectFrom('things').select('name').where('id', '=', p.id))
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('things').values({ id: 'd', owner: 'dan', name: 'Date' }).execute()
      expect(await byId(trx, { id: 'd' })).toEqual([{ name: 'Date' }])
    })
  })

  test('a value written into the query instead of a marker is refused on the first run', async () => {
    const wrong = compileOnce<Db, 'id', { name: string }>(['id'], (kysely) => kysely.selectFrom('things').select('name').where('id', '=', 'a'))
    await expect(wrong(db, { id: 'a' })).rejects.toThrow(/not one of the markers/)
  })
})

describe('readTogether', () => {
  test('each query gets its own rows, with its own parameters, as when run alone', async () => {
    await db
      .insertInto('things')
      .values([
        { id: 'nul', owner: 'zoe', name: 'a\u0000b' },
        { id: 'ffff', owner: 'zoe', name: 'x\uffff0' },
      ])
      .execute()
    const byOwner = compileOnce<Db, 'owner', { id: string; name: string }>(['owner'], (kysely, p) =>
      kysely.selectFrom('things').select(['id', 'name']).where('owner', '=', p.owner).orderBy('id'),
    )
    const count = compileOnce<Db, 'owner' | 'name', { n: number }>(['owner', 'name'], (kysely, p) =>
      kysely
        .selectFrom('things')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner', '!=', p.owner)
        .where('name', '>', p.name),
    )
    const queries = [
      byOwner.query(db, { owner: 'ann' }),
      count.query(db, { owner: 'bob', name: 'B' }),
      byOwner.query(db, { owner: 'nobody' }),
      byOwner.query(db, { owner: 'zoe' }),
    ] as const
    const alone = await Promise.all(queries.map(async (query) => (await db.executeQuery(query)).rows))
    const together = await readTogether(db, queries)
    expect([...together]).toEqual(alone)
    expect(together[1]).toEqual([{ n: 4 }])
    // Text PostgreSQL stores escaped comes back as it went in, from inside the JSON as from a column.
    expect(new Set(together[3].map((row) => row.name))).toEqual(new Set(['a\u0000b', 'x\uffff0']))
    expect(await readTogether(db, [])).toEqual([])
  })
})
