// ClusterRevisions.sync: which read a caller waits for. A read that started before the call may have missed a commit;
// with `since` (the request's arrival), a read that started after it serves, in flight or done. Reads are counted
// through a fake reader whose answers the test releases (the database is the edge here: no timing involved).
import { describe, expect, test } from 'bun:test'
import { ClusterRevisions } from '../../src/platform/cluster/revisions.ts'

interface PendingRead {
  resolve: (rows: { name: string; value: number }[]) => void
  reject: (error: Error) => void
}

function fakeDatabase() {
  const reads: PendingRead[] = []
  let stored = 0
  const revisions = new ClusterRevisions(
    () =>
      new Promise((resolve, reject) => {
        reads.push({ resolve, reject })
      }),
  )
  return {
    revisions,
    reads,
    /** Another instance commits a change: the stored counter moves. */
    commit: () => stored++,
    /** Answers read `i` with what is stored now. */
    answer: (i: number) => reads[i]!.resolve([{ name: 'sign_ins', value: stored }]),
  }
}

/** A fake database whose first read has completed, with `sign_ins` watched from before it (as after boot). */
async function fakeDatabaseReadOnce() {
  const db = fakeDatabase()
  db.revisions.get('sign_ins')
  db.revisions.sync()
  await settle()
  db.answer(0)
  await settle()
  return db
}

/** A request's arrival: a performance.now() the clock has already moved past, so anything started after is later. */
function arrival(): number {
  const at = performance.now()
  while (performance.now() <= at) {
    // the clock's resolution is far below a microsecond: a few iterations at most
  }
  return at
}

/**
 * Lets settled promises' reactions run (the fake reader's answers are promises) and one event-loop turn pass (a read
 * starts one turn after the call that needs it).
 */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
  await new Promise<void>((resolve) => setImmediate(resolve))
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

describe('ClusterRevisions.sync', () => {
  test('calls in the same event-loop turn share one read, which starts a turn later', async () => {
    const db = fakeDatabase()
    const first = db.revisions.sync()!
    // The rest of a poll's requests: their licence checks (no since) and authenticators (since: their arrival).
    const second = db.revisions.sync()
    const third = db.revisions.sync(arrival())
    expect(second).toBe(first)
    expect(third).toBe(first)
    expect(db.reads).toHaveLength(0)
    await settle()
    expect(db.reads).toHaveLength(1)
    db.answer(0)
    await Promise.all([first, second, third])
    expect(db.reads).toHaveLength(1)
  })

  test('without since, a call during a read waits for the next read (the one in flight may have missed a commit)', async () => {
    const db = fakeDatabase()
    const revision = db.revisions.get('sign_ins')
    const first = db.revisions.sync()!
    await settle()
    expect(db.reads).toHaveLength(1)
    const second = db.revisions.sync()!
    expect(second).not.toBe(first)
    db.answer(0)
    await first
    await settle()
    expect(db.reads).toHaveLength(2)
    db.commit()
    db.answer(1)
    await second
    expect(revision.value).toBe(1)
  })

  test('a request that arrived before the read in flight started joins it instead of queueing another', async () => {
    const db = fakeDatabase()
    const arrived = arrival()
    const first = db.revisions.sync(arrived)!
    await settle()
    expect(db.reads).toHaveLength(1)
    // The authenticator's lookup of the same request: the read in flight started after the request arrived.
    const second = db.revisions.sync(arrived)
    expect(second).toBe(first)
    db.answer(0)
    await second
    expect(db.reads).toHaveLength(1)
  })

  test('a request whose read has completed waits for nothing, and the values are those of that read', async () => {
    const db = await fakeDatabaseReadOnce()
    const revision = db.revisions.get('sign_ins')
    const before = revision.value
    const arrived = arrival()
    const licenceCheck = db.revisions.sync(arrived)!
    await settle()
    db.commit()
    db.answer(1)
    await licenceCheck
    expect(revision.value).toBe(before + 1)
    // The same request's authenticator: nothing to wait for, no new read.
    expect(db.revisions.sync(arrived)).toBeUndefined()
    expect(db.reads).toHaveLength(2)
  })

  test('a request that arrived after the read in flight started waits for the next one', async () => {
    const db = await fakeDatabaseReadOnce()
    const revision = db.revisions.get('sign_ins')
    const inFlight = db.revisions.sync()!
    await settle()
    expect(db.reads).toHaveLength(2)
    const arrived = arrival()
    // The other instance's commit may have landed after the read in flight took its snapshot.
    db.commit()
    const waiting = db.revisions.sync(arrived)!
    expect(waiting).not.toBe(inFlight)
    db.answer(1)
    await settle()
    expect(db.reads).toHaveLength(3)
    db.answer(2)
    await waiting
    expect(revision.value).toBe(1)
    // A read that completed before the request arrived does not serve it either.
    const later = arrival()
    expect(db.revisions.sync(later)).toBeDefined()
    await settle()
    expect(db.reads).toHaveLength(4)
  })

  test('a read that failed serves no one: the next call reads again', async () => {
    const db = fakeDatabase()
    const arrived = arrival()
    const failing = db.revisions.sync(arrived)!
    await settle()
    db.reads[0]!.reject(new Error('connection lost'))
    await expect(failing).rejects.toThrow('connection lost')
    const retry = db.revisions.sync(arrived)
    expect(retry).toBeDefined()
    await settle()
    expect(db.reads).toHaveLength(2)
    db.answer(1)
    await retry
  })

  test('on SQLite (nothing stored) there is never anything to wait for', () => {
    const revisions = new ClusterRevisions(null)
    expect(revisions.sync()).toBeUndefined()
    expect(revisions.sync(performance.now())).toBeUndefined()
  })
})
