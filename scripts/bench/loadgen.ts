// Fallback load generator when wrk is not installed: closed loop, N concurrent fetch loops for D seconds.
// Usage: bun scripts/bench/loadgen.ts URL CONCURRENCY SECONDS [HEADER_NAME HEADER_VALUE]
// Prints one JSON line: { requests, seconds, non2xx, errors, p50_ms, p99_ms }.
export {}

const [url, concurrencyArg, secondsArg, headerName, headerValue] = process.argv.slice(2)
if (!url) {
  console.error('usage: loadgen.ts URL CONCURRENCY SECONDS [HEADER_NAME HEADER_VALUE]')
  process.exit(2)
}
const concurrency = Number(concurrencyArg ?? 50)
const seconds = Number(secondsArg ?? 5)
const headers: Record<string, string> = headerName && headerValue ? { [headerName]: headerValue } : {}

const latencies: number[] = []
let non2xx = 0
let errors = 0
const started = performance.now()
const end = started + seconds * 1000

async function loop(): Promise<void> {
  while (performance.now() < end) {
    const t0 = performance.now()
    try {
      const response = await fetch(url!, { headers, signal: AbortSignal.timeout(5000) })
      await response.arrayBuffer()
      if (response.status < 200 || response.status > 299) non2xx++
      latencies.push(performance.now() - t0)
    } catch {
      errors++
    }
  }
}

await Promise.all(Array.from({ length: concurrency }, loop))
const elapsed = (performance.now() - started) / 1000
latencies.sort((a, b) => a - b)
const pick = (q: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! : null)
console.log(JSON.stringify({ requests: latencies.length, seconds: elapsed, non2xx, errors, p50_ms: pick(0.5), p99_ms: pick(0.99) }))
