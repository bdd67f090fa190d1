// Peak memory of a 50 MiB download through the streaming guarded client (createSafeStreamFetch), against Bun's own
// fetch read as a stream without the client's collection hints, and read whole (what a buffering client costs), in the same run.
//
// Each measurement runs in a fresh child process (so one download's heap does not inflate the next), against an
// upstream in another process that sends the body in 64 KiB chunks from one reused buffer. A child warms up with a
// small request, collects garbage, takes its idle RSS, downloads, and samples RSS at every chunk: peak − idle.
//
//   bun scripts/bench/outbound-stream.ts [--mib 50] [--rounds 3]
import { AllowList, parseAllowList } from '../../src/platform/outbound/allow-list.ts'
import { createSafeStreamFetch } from '../../src/platform/outbound/stream-fetch.ts'
import { intOption, median } from './lib.ts'

const MiB = 1024 * 1024
const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`)
  return at === -1 ? fallback : (args[at + 1] ?? '')
}

type Mode = 'stream' | 'raw' | 'buffered'

/** The upstream: GET /?bytes=N sends N bytes in 64 KiB chunks. */
async function upstream() {
  const chunk = new Uint8Array(64 * 1024).fill(120)
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      let left = Number(new URL(request.url).searchParams.get('bytes'))
      return new Response(
        new ReadableStream({
          pull(controller) {
            if (left <= 0) return controller.close()
            const piece = left >= chunk.byteLength ? chunk : chunk.subarray(0, left)
            left -= piece.byteLength
            controller.enqueue(piece)
          },
        }),
        { headers: { 'content-type': 'application/octet-stream' } },
      )
    },
  })
  console.log(server.port)
}

/** One measurement in this process: prints JSON {idle, peak, bytes}. */
async function measure(mode: Mode, port: number, bytes: number) {
  const url = `http://127.0.0.1:${port}/?bytes=`
  const stream = createSafeStreamFetch({ allow: AllowList.of(parseAllowList('127.0.0.1')) })
  const rss = () => process.memoryUsage.rss()
  const drain = async (body: ReadableStream<Uint8Array>, onChunk: () => void) => {
    let got = 0
    for await (const piece of body) {
      got += piece.byteLength
      onChunk()
    }
    return got
  }
  // Warm-up: the code paths and the connection pool exist before the idle figure is taken.
  await drain((await stream(`${url}${64 * 1024}`)).body, () => {})
  await (await fetch(`${url}${64 * 1024}`)).arrayBuffer()
  Bun.gc(true)
  const idle = rss()
  let peak = idle
  const sample = () => {
    const now = rss()
    if (now > peak) peak = now
  }
  let got: number
  if (mode === 'stream') got = await drain((await stream(`${url}${bytes}`, { maxResponseBytes: bytes })).body, sample)
  else if (mode === 'raw') got = await drain((await fetch(`${url}${bytes}`)).body!, sample)
  else {
    const timer = setInterval(sample, 1)
    got = (await (await fetch(`${url}${bytes}`)).arrayBuffer()).byteLength
    sample()
    clearInterval(timer)
  }
  if (got !== bytes) throw new Error(`${mode}: got ${got} bytes, expected ${bytes}`)
  console.log(JSON.stringify({ idle, peak }))
}

async function main() {
  const mib = intOption(option('mib', '50'), '--mib', 1, 4096)
  const rounds = intOption(option('rounds', '3'), '--rounds', 1, 50)
  const server = Bun.spawn([process.execPath, import.meta.path, '--upstream'], { stdout: 'pipe', stderr: 'inherit' })
  const reader = server.stdout.getReader()
  const port = Number(new TextDecoder().decode((await reader.read()).value).trim())
  const modes: Mode[] = ['stream', 'raw', 'buffered']
  const deltas: Record<Mode, number[]> = { stream: [], raw: [], buffered: [] }
  try {
    for (let round = 0; round < rounds; round++) {
      // Rotated order, so no mode always runs first on a cold machine.
      for (const mode of [...modes.slice(round % 3), ...modes.slice(0, round % 3)]) {
        const child = Bun.spawn([process.execPath, import.meta.path, '--measure', mode, String(port), String(mib * MiB)], { stdout: 'pipe', stderr: 'inherit' })
        const out = await new Response(child.stdout).text()
        if ((await child.exited) !== 0) throw new Error(`${mode} measurement failed`)
        const { idle, peak } = JSON.parse(out.trim().split('\n').at(-1)!)
        deltas[mode].push((peak - idle) / MiB)
      }
    }
  } finally {
    server.kill()
  }
  const fmt = (x: number) => x.toFixed(1)
  console.log(`\n${mib} MiB download, ${rounds} rounds, peak RSS above idle (MiB), median [min–max]\n`)
  console.log('| client | peak − idle | vs buffered |')
  console.log('|---|---|---|')
  const buffered = median(deltas.buffered)
  for (const mode of modes) {
    const m = median(deltas[mode])
    const label = {
      stream: 'safeStreamFetch, read as a stream',
      raw: "Bun's fetch, read as a stream (no collection hint)",
      buffered: "Bun's fetch, arrayBuffer() (buffering)",
    }[mode]
    console.log(`| ${label} | ${fmt(m)} [${fmt(Math.min(...deltas[mode]))}–${fmt(Math.max(...deltas[mode]))}] | ${(m / buffered).toFixed(2)}× |`)
  }
  const streamPeak = Math.max(...deltas.stream)
  const target = (20 * 1e6) / MiB
  console.log(
    `\nTarget: streaming peak within 20 MB (${fmt(target)} MiB) of idle in every round: ${streamPeak <= target ? 'met' : 'NOT met'} (worst ${fmt(streamPeak)} MiB).`,
  )
  if (streamPeak > target) process.exitCode = 1
}

if (args[0] === '--upstream') await upstream()
else if (args[0] === '--measure') await measure(args[1] as Mode, Number(args[2]), Number(args[3]))
else await main()
