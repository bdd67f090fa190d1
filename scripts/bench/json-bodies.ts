// Diagnostic for the JSON worker's threshold (docs/benchmarks.md, "Large bodies"): how long the request thread is held
// by a JSON body parsed inline (decode, nesting scan, JSON.parse: parseJsonBytes) against the same body parsed in the
// JSON worker (json-off-thread.ts: the bytes transferred, the value copied back), by size and shape. The worker path's
// hold is the longest gap between turns of the event loop while the body is in flight (a setImmediate chain).
// Medians of 7 runs after 2 warm-ups, in ms.
//
//   bun scripts/bench/json-bodies.ts
import { createJsonWorkerParser } from '../../src/platform/http/json-off-thread.ts'
import { MAX_LARGE_BODY_VALUES, parseJsonBytes } from '../../src/platform/http/json-text.ts'

const KiB = 1024
const MiB = 1024 * KiB
const JSON_CAP = MiB
const SIZES = [64 * KiB, 256 * KiB, MiB, 7 * MiB]
const SHAPES: Record<string, (bytes: number) => string> = {
  'ASCII text': (n) => JSON.stringify({ html: 'x'.repeat(n - 12) }),
  '\\u0001 escapes': (n) => JSON.stringify({ html: '\u0001'.repeat(Math.floor((n - 12) / 6)) }),
  numbers: (n) => `{"a":[${'0,'.repeat(Math.floor((n - 10) / 2) - 1)}0]}`,
  'empty objects': (n) => `{"a":[${'{},'.repeat(Math.floor((n - 10) / 3) - 1)}{}]}`,
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** The longest the event loop went without a turn while `work` ran. */
async function longestHold(work: () => Promise<unknown>): Promise<number> {
  let running = true
  let last = performance.now()
  let worst = 0
  const tick = () => {
    const now = performance.now()
    worst = Math.max(worst, now - last)
    last = now
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  await work()
  running = false
  await new Promise((resolve) => setImmediate(resolve))
  return Math.max(worst, performance.now() - last)
}

const worker = createJsonWorkerParser()
console.log(`JSON bodies: inline vs the JSON worker, ${new Date().toISOString()}, medians of 7 (ms)`)
console.log('| shape | size | inline: thread held | worker: longest hold | worker: latency | worker answer |')
console.log('|---|---|---|---|---|---|')
for (const [shape, make] of Object.entries(SHAPES)) {
  for (const size of SIZES) {
    const bytes = new TextEncoder().encode(make(size))
    const maxValues = bytes.byteLength > JSON_CAP ? MAX_LARGE_BODY_VALUES : undefined
    const inline: number[] = []
    const held: number[] = []
    const latency: number[] = []
    let answer = ''
    for (let run = 0; run < 9; run++) {
      const t0 = performance.now()
      parseJsonBytes(bytes, maxValues)
      const inlineMs = performance.now() - t0
      const copy = bytes.slice()
      let took = 0
      const hold = await longestHold(async () => {
        const t1 = performance.now()
        const result = await worker(copy, maxValues)
        took = performance.now() - t1
        answer = result.ok ? 'parsed' : 'refused (values)'
      })
      if (run < 2) continue
      inline.push(inlineMs)
      held.push(hold)
      latency.push(took)
    }
    const kib = size >= MiB ? `${size / MiB} MiB` : `${size / KiB} KiB`
    console.log(`| ${shape} | ${kib} | ${median(inline).toFixed(2)} | ${median(held).toFixed(2)} | ${median(latency).toFixed(2)} | ${answer} |`)
  }
}
process.exit(0)
