// The worker client every worker of the server is driven by (src/platform/worker-client.ts), against a fixture worker
// that answers by id with a token of its own (which worker answered): jobs answered by id, a worker that fails or exits
// failing every job it held and replaced by the next job, a retired worker answering what it already had, the idle
// retirement, and a process that ends with an idle worker. Nothing here waits on time: every step awaits an answer,
// a rejection or a message of the worker.
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { WorkerClient, workerUrl } from '../../src/platform/worker-client.ts'
import type { FixtureAnswer, FixtureJob } from './fixtures/worker-client-worker.ts'

const ROOT = resolve(import.meta.dir, '../..')
/** Why a job failed ('answered' if it did not): a handler attached at once, so that no rejection goes unhandled. */
const outcome = (job: Promise<unknown>) =>
  job.then(
    () => 'answered',
    (error: Error) => error.message,
  )
type Kind = Exclude<FixtureJob, { close: true }>['kind']

/** A client of the fixture worker; `closing` resolves with the token of the next worker that says it is closing. */
function fixtureClient(idleMs?: number) {
  const failures: string[] = []
  let closed: (token: string) => void = () => {}
  const client: WorkerClient<FixtureJob, FixtureAnswer, { value: string; token: string }> = new WorkerClient({
    entry: 'test/platform/fixtures/worker-client-worker.ts',
    name: 'fixture worker',
    closeMessage: { close: true },
    idleMs,
    onMessage: (answer) => {
      if ('closing' in answer) closed(answer.closing)
      else client.settle(answer.id)?.resolve({ value: answer.value, token: answer.token })
    },
    onFailure: (reason) => failures.push(reason),
  })
  const job = (kind: Kind, value = '') => client.submit((id) => ({ id, kind, value }) as FixtureJob)
  const nextClosing = () => new Promise<string>((resolve) => (closed = resolve))
  return { client, job, failures, nextClosing }
}

describe('where a worker is started from', () => {
  test('from source: the entry under the repository root, a file that exists', () => {
    const url = workerUrl('src/platform/http/json-worker.ts')
    expect(fileURLToPath(url)).toBe(join(ROOT, 'src/platform/http/json-worker.ts'))
    expect(existsSync(fileURLToPath(url))).toBe(true)
  })

  test('inside the compiled binary: the path scripts/build.ts embeds it at', () => {
    expect(workerUrl('src/platform/http/json-worker.ts', 'file:///$bunfs/root/agentbox')).toBe('/$bunfs/root/src/platform/http/json-worker.ts')
  })
})

describe('jobs', () => {
  test('are answered by id, whatever the order of the answers, all by one worker', async () => {
    const { client, job } = fixtureClient()
    const first = job('hold')
    const second = job('hold')
    expect(await job('echo', 'meanwhile')).toMatchObject({ value: 'meanwhile' })
    const released = await job('release')
    const answers = await Promise.all([first, second])
    expect(answers.map((answer) => answer.value)).toEqual(['held 1', 'held 2'])
    expect(new Set([...answers, released].map((answer) => answer.token)).size).toBe(1)
    await client.retire()
  })

  test('a job whose message cannot be posted is rejected and leaves nothing waiting', async () => {
    const { client } = fixtureClient()
    const uncloneable = client.submit((id) => ({ id, kind: 'echo', value: (() => 'x') as unknown as string }))
    await expect(uncloneable).rejects.toThrow()
    expect(client.waiting(1)).toBeUndefined()
    await client.retire()
  })
})

describe('a worker that fails', () => {
  test('an error in the worker rejects every job it held, reports once, and the next job gets a fresh worker', async () => {
    const { client, job, failures } = fixtureClient()
    const before = await job('echo', 'a')
    const outcomes = await Promise.all([job('hold'), job('hold'), job('throw')].map(outcome))
    expect(outcomes).toHaveLength(3)
    for (const reason of outcomes) expect(reason).toStartWith('fixture worker failed: ')
    expect(failures).toEqual([outcomes[0]!])
    expect(failures[0]).toContain('the fixture failed on purpose')
    const after = await job('echo', 'b')
    expect(after.value).toBe('b')
    expect(after.token).not.toBe(before.token)
    await client.retire()
  })

  test('a worker that exits without being asked rejects every job it held ("exited"), and the next job gets a fresh worker', async () => {
    const { client, job, failures } = fixtureClient()
    const before = await job('echo', 'a')
    expect(await Promise.all([job('hold'), job('exit')].map(outcome))).toEqual(['fixture worker exited', 'fixture worker exited'])
    expect(failures).toEqual(['fixture worker exited'])
    const after = await job('echo', 'b')
    expect(after.token).not.toBe(before.token)
    await client.retire()
  })

  test('abandon rejects every waiting job with the error given; the worker stays', async () => {
    const { client, job, failures } = fixtureClient()
    const before = await job('echo', 'a')
    const held = outcome(job('hold'))
    client.abandon(new Error('closed for good'))
    expect(await held).toBe('closed for good')
    expect((await job('echo', 'b')).token).toBe(before.token)
    expect(failures).toEqual([])
    await client.retire()
  })
})

describe('retiring', () => {
  test('a retired worker answers the jobs it already had, ends (not a failure), and the next job starts another', async () => {
    const { client, job, failures, nextClosing } = fixtureClient()
    const closing = nextClosing()
    const sent = job('echo', 'before the close')
    const ended = client.retire()
    const answered = await sent
    expect(answered.value).toBe('before the close')
    expect(await closing).toBe(answered.token)
    await ended
    expect(failures).toEqual([])
    expect((await job('echo', 'after')).token).not.toBe(answered.token)
    await client.retire()
  })

  test('with idleMs, the worker is asked to close once no job waits, and the next job starts another', async () => {
    const { client, job, failures, nextClosing } = fixtureClient(0)
    const closing = nextClosing()
    const answered = await job('echo', 'a')
    expect(await closing).toBe(answered.token)
    expect((await job('echo', 'b')).token).not.toBe(answered.token)
    expect(failures).toEqual([])
    await client.retire()
  })

  test('without idleMs, an idle worker is kept: two jobs apart are answered by one worker', async () => {
    const { client, job } = fixtureClient()
    const first = await job('echo', 'a')
    expect((await job('echo', 'b')).token).toBe(first.token)
    await client.retire()
  })

  test('retiring with no worker running resolves at once', async () => {
    const { client } = fixtureClient()
    await client.retire()
  })
})

test('a waiting worker does not keep the process alive: a script with nothing left to do ends', async () => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, 'fixtures/worker-client-idle.ts')], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  // If the idle worker held the process, this would never resolve (and the test would fail at its time-out).
  expect(await child.exited).toBe(0)
  expect((await new Response(child.stdout).text()).trim()).toBe('answered')
})

test('every worker a client starts is embedded in the binary: its entry exists and scripts/build.ts lists it', () => {
  const build = readFileSync(join(ROOT, 'scripts/build.ts'), 'utf8')
  const listed = [...build.slice(build.indexOf('const WORKER_ENTRIES')).matchAll(/^\s+'([^']+)',$/gm)].map((match) => match[1])
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
    )
  const entries = sources(join(ROOT, 'src')).flatMap((file) => {
    const text = readFileSync(file, 'utf8')
    return text.includes('new WorkerClient') ? [...text.matchAll(/\bentry: '([^']+)'/g)].map((match) => match[1]!) : []
  })
  expect(entries.sort()).toEqual([
    'src/modules/applications/document/import-worker.ts',
    'src/modules/insights/insights-worker.ts',
    'src/modules/ui-templates/git/git-worker.ts',
    'src/platform/db/checkpoint-worker.ts',
    'src/platform/http/json-worker.ts',
  ])
  for (const entry of entries) {
    expect(existsSync(join(ROOT, entry))).toBe(true)
    expect(listed).toContain(entry)
  }
})
