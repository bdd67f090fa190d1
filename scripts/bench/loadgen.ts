// Fallback load generator when wrk is not installed, and the load of the execute bench: closed loop, N concurrent fetch
// loops for D seconds.
// Usage: bun scripts/bench/loadgen.ts URL CONCURRENCY SECONDS [HEADER_NAME HEADER_VALUE] [--post BODY]
// With --post, each request is a POST of BODY as application/json.
// Prints one JSON line: { requests, seconds, non2xx, errors, p50_ms, p99_ms }.
export {}

const argv = process.argv.slice(2)
const postAt = argv.indexOf('--post')
const postBody = postAt >= 0 ? argv.splice(postAt, 2)[1] : undefined
const [url, concurrencyArg, secondsArg, headerName, headerValue] = argv
if (!url) {
  console.error('usage: loadgen.ts URL CONCURRENCY SECONDS [HEADER_NAME HEADER_VALUE] [--post BODY]')
  process.exit(2)
}
const concurrency = Number(concurrencyArg ?? 50)
const seconds = Number(secondsArg ?? 5)
const headers: Record<string, string> = headerName && headerValue ? { [headerName]: headerValue } : {}
if (postBody !== undefined) headers['content-type'] = 'application/json'
const init: RequestInit = postBody === undefined ? { headers } : { method: 'POST', headers, body: postBody }

const latencies: number[] = []
let non2xx = 0
let errors = 0
const started = performance.now()
const end = started + seconds * 1000

async function loop(): Promise<void> {
  while (performance.now() < end) {
    const t0 = performance.now()
    try {
      const response = await fetch(url!, { ...init, signal: AbortSignal.timeout(5000) })
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
