// Instances booting together on one fresh PostgreSQL database migrate it once (src/platform/db/migrate.ts): the
// migrations run under an advisory lock, the instance that gets it applies them all, and the others wait for it and then
// find nothing pending. On SQLite one data dir has one server (data-dir-lock.test.ts), so there is nothing to race.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { MIGRATION_LOCK_KEY } from '../../src/platform/db/migrate.ts'
import { MIGRATIONS } from '../../src/platform/db/migrations/index.ts'
import { dropTestDatabase, emptyTestDatabase, ON_POSTGRES, shareTestDatabase } from '../helpers/database.ts'
import { launchServer, logLines, sleep, stopAllServers, stopServer } from '../helpers/process.ts'

const tmp = mkdtempSync(join(tmpdir(), 'agentbox-migration-lock-'))
afterAll(async () => {
  await stopAllServers()
  await dropTestDatabase(join(tmp, 'a'))
  rmSync(tmp, { recursive: true, force: true })
})

test.skipIf(!ON_POSTGRES)('two instances booting together on one fresh database: one migrates, the other waits and finds nothing pending', async () => {
  const [a, b] = [join(tmp, 'a'), join(tmp, 'b')]
  const target = await emptyTestDatabase(a)
  shareTestDatabase(a, b)
  const url = (target as { url: string }).url
  // The test holds the migration lock first, so that both instances are certainly waiting for it at the same time
  // (not one finishing before the other starts); it watches them queue up in pg_locks, then lets go.
  const holder = new pg.Client({ connectionString: url })
  await holder.connect()
  try {
    await holder.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`)
    // Instances on one database share one secrets directory (each would refuse a directory of its own).
    const env = { AGENTBOX_SECRETS_DIR: join(tmp, 'secrets') }
    const booting = [launchServer({ dataDir: a, env }), launchServer({ dataDir: b, env })]
    const waiting = async () =>
      Number(
        (
          await holder.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid
             WHERE l.locktype = 'advisory' AND NOT l.granted AND s.application_name = 'agentbox-migrate'`,
          )
        ).rows[0]!.n,
      )
    const deadline = Date.now() + 20_000
    while ((await waiting()) < 2) {
      if (Date.now() > deadline) throw new Error('the two instances never waited for the migration lock together')
      await sleep(20)
    }
    // Nothing has been migrated while the lock is held elsewhere.
    expect((await holder.query(`SELECT to_regclass('kysely_migration')::text AS t`)).rows[0].t).toBeNull()
    await holder.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`)
    const servers = await Promise.all(booting)

    for (const server of servers) expect((await fetch(`${server.base}/api/health/ready`)).status).toBe(200)
    const migrated = servers.map((server) => logLines(server).find((line) => line.msg === 'database migrated'))
    const names = Object.keys(MIGRATIONS).sort()
    // Exactly one of them applied the migrations, every one of them, once.
    expect(migrated.filter(Boolean)).toHaveLength(1)
    expect(migrated.find(Boolean)?.applied).toEqual(names)
    const stored = await holder.query<{ name: string }>('SELECT name FROM kysely_migration ORDER BY name')
    expect(stored.rows.map((row) => row.name)).toEqual(names)
    for (const server of servers) expect(await stopServer(server, 'SIGTERM')).toBe(0)
  } finally {
    await holder.end()
  }
})
