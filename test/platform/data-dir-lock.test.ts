// One server per data dir (src/platform/data-dir-lock.ts): a second one is refused, in the same process and from another
// process, and the lock goes with its holder: on stop, on a failed boot, and on kill -9.
import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config.ts'
import { DataDirInUseError, LOCK_FILE } from '../../src/platform/data-dir-lock.ts'
import { createServer, DATABASE_FILE } from '../../src/server.ts'
import { CapturedLog, startTestServer } from '../helpers/server.ts'
import { launchServer, ROOT, stopAllServers, stopServer } from '../helpers/process.ts'

const tmp = mkdtempSync(join(tmpdir(), 'agentbox-lock-'))
afterAll(async () => {
  await stopAllServers()
  rmSync(tmp, { recursive: true, force: true })
})

const boot = (dataDir: string) =>
  createServer(loadConfig(['serve'], { AGENTBOX_DATA_DIR: dataDir, AGENTBOX_LICENSE_MODE: 'test' }), { logger: new CapturedLog() })

describe('in one process', () => {
  const removeWal = (database: string) => {
    for (const suffix of ['-wal', '-shm']) rmSync(database + suffix, { force: true })
  }
  /** A data dir whose database was made by a clean boot and stop, with its bytes kept so a test can damage and restore it. */
  async function bootedOnce(name: string) {
    const dataDir = join(tmp, name)
    await (await boot(dataDir)).stop()
    const database = join(dataDir, DATABASE_FILE)
    const saved = new Uint8Array(await Bun.file(database).arrayBuffer())
    const restore = () => {
      writeFileSync(database, saved)
      removeWal(database)
    }
    return { dataDir, database, restore }
  }
  const bootError = (dataDir: string) =>
    boot(dataDir).then(
      () => null,
      (error: Error) => error,
    )

  /** The same process boots on the data dir again: the lock was given back and the database closed. */
  async function expectRetryStarts(dataDir: string) {
    const retried = await boot(dataDir)
    expect((await retried.fetch(new Request('http://localhost/api/health/ready'))).status).toBe(200)
    await retried.stop()
  }

  test('a second server on the same data dir is refused while the first runs, and starts once it stopped', async () => {
    const first = await startTestServer({ dataDir: join(tmp, 'same-process') })
    const refused = await bootError(first.dataDir)
    expect(refused).toBeInstanceOf(DataDirInUseError)
    expect(refused?.message).toContain(first.dataDir)
    // The refusal touched nothing: the first server still answers and writes.
    const { adminToken } = await first.provision()
    expect((await first.request('GET', '/api/auth/me', { token: adminToken })).status).toBe(200)
    await first.close()
    await expectRetryStarts(first.dataDir)
  })

  test('the lock file is private to the service user', async () => {
    const server = await startTestServer({ dataDir: join(tmp, 'mode') })
    expect(statSync(join(server.dataDir, LOCK_FILE)).mode & 0o777).toBe(0o600)
    await server.close()
  })

  test('a database that cannot be opened fails the boot, gives the lock back, and a corrected retry starts', async () => {
    const { dataDir, database, restore } = await bootedOnce('failed-boot')
    writeFileSync(database, 'this is not a SQLite file, it is long enough to have a header of its own....')
    removeWal(database)
    const failure = await bootError(dataDir)
    expect(failure).toBeInstanceOf(Error)
    expect(failure).not.toBeInstanceOf(DataDirInUseError)
    restore()
    await expectRetryStarts(dataDir)
  })

  test('a module that fails to start (a damaged table) fails the boot, gives the lock back, and a repaired retry starts', async () => {
    const { dataDir, database, restore } = await bootedOnce('module-start')
    const damage = new Database(database)
    damage.run('DROP TABLE task_runs')
    damage.close()
    expect(String((await bootError(dataDir))?.message)).toContain('task_runs')
    restore()
    await expectRetryStarts(dataDir)
  })
})

describe('across processes', () => {
  test('a port already in use exits 1 with one sentence naming the port, no stack, and leaves its data dir unlocked', async () => {
    const first = await launchServer({ dataDir: join(tmp, 'port-first') })
    const port = new URL(first.base).port
    const dataDir = join(tmp, 'port-second')
    const spawnSecond = () =>
      Bun.spawn([process.execPath, 'src/main.ts', 'serve', '--port', port, '--host', '127.0.0.1', '--data', dataDir], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir, AGENTBOX_LICENSE_MODE: 'test' },
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      })
    const second = spawnSecond()
    expect(await second.exited).toBe(1)
    const lines = (await new Response(second.stdout).text())
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
    const failure = lines.find((line) => line.msg === 'could not start')
    expect(failure?.error).toBe(`Port ${port} on 127.0.0.1 is already in use: stop what listens there or choose another with --port`)
    expect(failure?.stack).toBeUndefined()
    // It closed what it opened: the same command fails the same way, not on a held data-dir lock.
    const again = spawnSecond()
    expect(await again.exited).toBe(1)
    expect(await new Response(again.stdout).text()).toContain('is already in use')
    expect(await stopServer(first, 'SIGTERM')).toBe(0)
  })

  test('a second `agentbox serve` exits 1 with the reason; after kill -9 of the first, a new one starts on the data dir', async () => {
    const dataDir = join(tmp, 'processes')
    const first = await launchServer({ dataDir })

    const second = Bun.spawn([process.execPath, 'src/main.ts', 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir, AGENTBOX_LICENSE_MODE: 'test' },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(await second.exited).toBe(1)
    const lines = (await new Response(second.stdout).text()).split('\n').filter((line) => line.startsWith('{'))
    const failure = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'could not start')
    expect(failure?.error).toContain('another agentbox process is serving the data dir')
    expect(failure?.stack).toBeUndefined()
    expect((await fetch(`${first.base}/api/health/live`)).status).toBe(200)

    expect(await stopServer(first, 'SIGKILL')).not.toBe(0)
    const third = await launchServer({ dataDir })
    expect((await fetch(`${third.base}/api/health/ready`)).status).toBe(200)
    expect(await stopServer(third, 'SIGTERM')).toBe(0)
  })
})
