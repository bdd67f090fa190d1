// Scheduler benchmark: boot with N enabled tasks (time to rebuild every job, memory), and M tasks due in the same second
// on the real clock with the mock provider (how long until every run has started; proof that none ran twice).
//
//   bun scripts/bench/scheduler.ts [--tasks 10000] [--due 1000] [--rounds 3] [--json FILE]
//
// Method: each round uses a fresh data dir and a fresh tasks module over the real SQLite database (WAL), built the way
// the server builds it. Boot: the tasks are inserted directly, then the module's start() (interrupted-run recovery,
// one indexed query, one job per task) is timed, and the heap is measured around it after a forced GC; a full
// createServer() on the same data dir is timed as well. Due: M tasks whose next slot is the same whole second a few
// seconds ahead; the module's own timer fires them; "started" is each run's started_at minus the slot. Extra ticks are
// fired around the slot to try to provoke double runs; the check counts runs per task and per (task, slot).
import type { SqliteHandle } from '../../src/platform/db/database.ts'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../../src/config.ts'
import { createOutboundClient } from '../../src/platform/outbound/outbound-client.ts'
import { ThreadsService } from '../../src/modules/threads/index.ts'
import { ModelProviders } from '../../src/llm/registry.ts'
import { createTasksModule } from '../../src/modules/tasks/module.ts'
import { authGuard } from '../../src/platform/auth/guard.ts'
import { isoTime, systemClock } from '../../src/platform/clock.ts'
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import type { TasksTable } from '../../src/platform/db/tables/tasks.ts'
import { notAuthenticated } from '../../src/platform/http/http-error.ts'
import { newId } from '../../src/platform/ids.ts'
import { JobRunner } from '../../src/platform/jobs.ts'
import { createLogger } from '../../src/platform/log.ts'
import { createCluster } from '../../src/platform/cluster/index.ts'
import { nextRunAt, type Schedule } from '../../src/modules/tasks/schedule.ts'
import { createServer } from '../../src/server.ts'

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: false,
  options: {
    tasks: { type: 'string', default: '10000' },
    due: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    json: { type: 'string' },
  },
})
const TASKS = Number(opts.tasks)
const DUE = Number(opts.due)
const ROUNDS = Number(opts.rounds)
const logger = createLogger('error')
const USER_ID = 'bench-user'

const SCHEDULES: Schedule[] = [
  { frequency: 'daily', hour: '09:00', day: null, timezone: 'Europe/Berlin', cron: null },
  { frequency: 'hourly', hour: '00:15', day: null, timezone: 'UTC', cron: null },
  { frequency: 'weekly', hour: '17:30', day: 'friday', timezone: 'America/New_York', cron: null },
  { frequency: 'monthly', hour: '08:00', day: '31', timezone: 'Asia/Tokyo', cron: null },
  { frequency: 'cron', hour: null, day: null, timezone: 'Australia/Sydney', cron: '*/10 9-17 * * 1-5' },
]

async function freshDatabase(): Promise<{ dir: string; database: DatabaseHandle }> {
  const dir = mkdtempSync(join(tmpdir(), 'agentbox-bench-scheduler-'))
  const database = openDatabase({ kind: 'sqlite', path: join(dir, 'agentbox.db') }) as SqliteHandle
  await migrateToLatest(database, dir, Date.now())
  const now = isoTime(Date.now())
  await database.db
    .insertInto('users')
    .values({
      id: USER_ID,
      kind: 'person',
      email: 'bench@example.com',
      name: 'Bench',
      role: 'admin',
      password_hash: null,
      active: 1,
      session_version: 0,
      created_at: now,
      updated_at: now,
    })
    .execute()
  return { dir, database }
}

function taskRow(i: number, schedule: Schedule, nextRun: number): TasksTable {
  const now = isoTime(Date.now())
  return {
    id: newId(),
    name: `task ${i}`,
    prompt: `bench prompt ${i}`,
    creator_id: USER_ID,
    created_by: 'bench@example.com',
    agent_id: null,
    chat_provider: null,
    chat_model: null,
    mentions: '[]',
    visibility: 'private',
    frequency: schedule.frequency,
    schedule_hour: schedule.hour,
    schedule_day: schedule.day,
    timezone: schedule.timezone,
    cron: schedule.cron,
    state: 'enabled',
    thread_policy: 'new_each_run',
    thread_id: null,
    next_run: isoTime(nextRun),
    last_run_at: null,
    last_run_status: null,
    last_run_thread_id: null,
    created_at: now,
    updated_at: now,
  }
}

async function insertTasks(database: DatabaseHandle, rows: TasksTable[]): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 500)
      await trx
        .insertInto('tasks')
        .values(rows.slice(i, i + 500))
        .execute()
  })
}

function tasksModuleOver(database: DatabaseHandle, dataDir: string) {
  const config = loadConfig(['serve'], { AGENTBOX_DATA_DIR: dataDir })
  const guard = authGuard({
    authenticate: () => {
      throw notAuthenticated()
    },
    licenseLapsed: () => false,
    synchronous: true,
  })
  return createTasksModule(
    { config, clock: systemClock, logger, database, guard, jobs: new JobRunner(logger), cluster: createCluster(database, logger, systemClock) },
    {
      providers: new ModelProviders(config.llm, createOutboundClient({ operatorAllow: [], adminAllow: async () => [] })),
      threads: new ThreadsService({ db: database.db, clock: systemClock }),
    },
  )
}

const heapMiB = () => {
  Bun.gc(true)
  return process.memoryUsage().heapUsed / 2 ** 20
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const round1 = (x: number) => Math.round(x * 10) / 10

async function bootRound() {
  const { dir, database } = await freshDatabase()
  const now = Date.now()
  await insertTasks(
    database,
    Array.from({ length: TASKS }, (_, i) => taskRow(i, SCHEDULES[i % SCHEDULES.length]!, nextRunAt(SCHEDULES[i % SCHEDULES.length]!, now)!)),
  )
  const heapBefore = heapMiB()
  const module = tasksModuleOver(database, dir)
  const started = performance.now()
  await module.start!()
  const startMs = performance.now() - started
  const heapAfter = heapMiB()
  const rssAfter = process.memoryUsage().rss / 2 ** 20 // the whole bench process, for scale
  const jobs = module.schedulerState().jobs
  await module.stop!()
  await database.close()

  // The whole server on the same data dir: migrations check, licence, every module's start, first health answer.
  const serverStarted = performance.now()
  const server = await createServer(loadConfig(['serve'], { AGENTBOX_DATA_DIR: dir, AGENTBOX_LICENSE_MODE: 'test' }), { logger })
  const health = (await (await server.app.handle(new Request('http://localhost/api/health'))).json()) as { checks: { scheduler: { jobs: number } } }
  const serverMs = performance.now() - serverStarted
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
  if (jobs !== TASKS || health.checks.scheduler.jobs !== TASKS)
    throw new Error(`expected ${TASKS} jobs, module had ${jobs}, health said ${health.checks.scheduler.jobs}`)
  return { startMs, serverMs, heapDeltaMiB: heapAfter - heapBefore, rssMiB: rssAfter, jobs }
}

async function dueRound() {
  const { dir, database } = await freshDatabase()
  const slot = Math.ceil((Date.now() + 3_000) / 1000) * 1000
  const at = new Date(slot)
  // A 6-field cron for exactly that second of the day (UTC): the next slot after it is a day away.
  const schedule: Schedule = {
    frequency: 'cron',
    hour: null,
    day: null,
    timezone: 'UTC',
    cron: `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`,
  }
  if (nextRunAt(schedule, slot - 1) !== slot) throw new Error('slot computation disagrees')
  await insertTasks(
    database,
    Array.from({ length: DUE }, (_, i) => taskRow(i, schedule, slot)),
  )
  const module = tasksModuleOver(database, dir)
  await module.start!()

  // Extra ticks just before and after the slot, racing the module's own timer (which should have started everything).
  const extra: number[] = []
  for (const offset of [-5, 2, 50, 100, 200]) setTimeout(() => extra.push(module.scheduler.tick()), slot - Date.now() + offset)
  while (Date.now() < slot + 300) await Bun.sleep(10)
  await module.scheduler.idle()
  const doneAt = Date.now()
  for (let i = 0; i < 5; i++) extra.push(module.scheduler.tick())
  await module.scheduler.idle()

  const reader = (database as SqliteHandle).reader
  const runs = reader.query('SELECT task_id, scheduled_for, started_at, finished_at, status FROM task_runs').all() as {
    task_id: string
    scheduled_for: string
    started_at: string
    finished_at: string
    status: string
  }[]
  const perTask = reader.query('SELECT count(*) AS n FROM (SELECT task_id FROM task_runs GROUP BY task_id HAVING count(*) > 1)').get() as { n: number }
  const perSlot = reader
    .query('SELECT count(*) AS n FROM (SELECT task_id, scheduled_for FROM task_runs GROUP BY task_id, scheduled_for HAVING count(*) > 1)')
    .get() as { n: number }
  const lags = runs.map((r) => Date.parse(r.started_at) - slot)
  const finishes = runs.map((r) => Date.parse(r.finished_at) - slot)
  const succeeded = runs.filter((r) => r.status === 'succeeded').length
  await module.stop!()
  await database.close()
  rmSync(dir, { recursive: true, force: true })
  return {
    runs: runs.length,
    distinctTasks: new Set(runs.map((r) => r.task_id)).size,
    succeeded,
    tasksRunTwice: perTask.n,
    slotsRunTwice: perSlot.n,
    extraTicksStarted: extra.reduce((a, b) => a + b, 0),
    firstStartMs: Math.min(...lags),
    allStartedMs: Math.max(...lags),
    allFinishedMs: Math.max(...finishes),
    idleAfterMs: doneAt - slot,
  }
}

console.log(
  `scheduler bench: ${TASKS} tasks at boot, ${DUE} due in one second, ${ROUNDS} rounds; ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, Bun ${Bun.version}`,
)
const boots = []
const dues = []
for (let round = 1; round <= ROUNDS; round++) {
  const boot = await bootRound()
  console.log(
    `round ${round} boot: start() ${round1(boot.startMs)} ms for ${boot.jobs} jobs; createServer + first health ${round1(boot.serverMs)} ms; heap +${round1(boot.heapDeltaMiB)} MiB for the jobs; process RSS ${round1(boot.rssMiB)} MiB`,
  )
  boots.push(boot)
  const due = await dueRound()
  console.log(
    `round ${round} due: ${due.runs} runs for ${due.distinctTasks} tasks (${due.succeeded} succeeded); first started +${due.firstStartMs} ms, all started +${due.allStartedMs} ms, all finished +${due.allFinishedMs} ms after the slot; tasks run twice: ${due.tasksRunTwice}, slots run twice: ${due.slotsRunTwice}, runs started by extra ticks: ${due.extraTicksStarted}`,
  )
  dues.push(due)
  if (due.runs !== DUE || due.distinctTasks !== DUE || due.tasksRunTwice !== 0 || due.slotsRunTwice !== 0)
    throw new Error('a due task did not run exactly once')
}
const summary = {
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, bun: Bun.version, date: new Date().toISOString() },
  boot: {
    tasks: TASKS,
    startMs: round1(median(boots.map((b) => b.startMs))),
    serverMs: round1(median(boots.map((b) => b.serverMs))),
    heapDeltaMiB: round1(median(boots.map((b) => b.heapDeltaMiB))),
    rssMiB: round1(median(boots.map((b) => b.rssMiB))),
  },
  due: {
    tasks: DUE,
    allStartedMs: median(dues.map((d) => d.allStartedMs)),
    allFinishedMs: median(dues.map((d) => d.allFinishedMs)),
    firstStartMs: median(dues.map((d) => d.firstStartMs)),
    ranTwice: Math.max(...dues.map((d) => d.tasksRunTwice + d.slotsRunTwice)),
  },
}
console.log(
  `median: boot start() ${summary.boot.startMs} ms, server boot ${summary.boot.serverMs} ms, heap +${summary.boot.heapDeltaMiB} MiB; ${DUE} due: all started within ${summary.due.allStartedMs} ms, all finished within ${summary.due.allFinishedMs} ms; ran twice: ${summary.due.ranTwice}`,
)
if (opts.json) writeFileSync(String(opts.json), JSON.stringify(summary, null, 2))
