// One insights job computed as JSON text within the worker's fair share of a core (platform/fair-share.ts).
import type { Kysely } from 'kysely'
import type { Database } from '../../platform/db/schema.ts'
import type { FairShare } from '../../platform/fair-share.ts'
import { computeInsights, type InsightsScope } from './compute.ts'

export interface InsightsJob {
  scope: InsightsScope
  fromMs: number
  toMs: number
}

/** Rests last at least this long, so a job's rest outlasts the HTTP work of the next request it holds back. */
const MIN_REST_MS = 2
/** Rests last this many times the work they follow: analytics looping beside other traffic get a third of a core. */
const REST_FACTOR = 2

/** Once the share is spent and others came, a round of days is followed by a rest, and so is the whole job. */
export async function computeInShare(db: Kysely<Database>, job: InsightsJob, share: FairShare): Promise<string> {
  const began = performance.now()
  let rested = 0
  let counted = 0
  const betweenRounds = async (tookMs: number) => {
    counted += tookMs
    const before = performance.now()
    if (await share.after(tookMs, REST_FACTOR * tookMs)) rested += performance.now() - before
  }
  try {
    const json = JSON.stringify(await computeInsights(db, job.scope, job.fromMs, job.toMs, betweenRounds))
    // The rounds before the last were counted as they ended; the rest of the job's work (the last round, the JSON) here.
    const worked = performance.now() - began - rested
    await share.after(worked - counted, Math.max(REST_FACTOR * worked, MIN_REST_MS))
    return json
  } finally {
    share.done()
  }
}
