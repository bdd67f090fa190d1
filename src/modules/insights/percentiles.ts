// Nearest-rank percentiles over the duration histogram (migration 0008: bucket b holds durations up to 1.02^b ms), so a
// year of calls merges as a few thousand (bucket, count) pairs; each answer is within 2 % of the exact value.

const GROWTH = 1.02

/** The bucket of a duration, as migration 0008's triggers compute it in SQL. */
export const durationBucket = (ms: number): number => (ms < 1 ? 0 : Math.ceil(Math.log(ms) / Math.log(GROWTH)))

/** The duration a bucket stands for: its upper bound, to 0.1 ms (bucket 0 holds everything under 1 ms). */
export const bucketValueMs = (bucket: number): number => (bucket <= 0 ? 1 : Math.round(GROWTH ** bucket * 10) / 10)

/** The smallest value with at least p % of the observations at or below it (nearest rank), or null without any. */
export function nearestRank(histogram: ReadonlyMap<number, number>, percent: number): number | null {
  let total = 0
  for (const count of histogram.values()) total += count
  if (total === 0) return null
  const rank = Math.max(1, Math.ceil((percent / 100) * total))
  let seen = 0
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket)!
    if (seen >= rank) return bucketValueMs(bucket)
  }
  return null
}

/** The exact nearest-rank median of plain values (approval waits, a few per day). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.ceil(sorted.length / 2) - 1]!
}
