// The loopback servers of the outbound benchmarks, each run as its own process:
//
//   bun scripts/bench/loopback.ts upstream PORT            the API an operation calls: a small JSON, as a typical read
//   bun scripts/bench/loopback.ts proxy PORT UPSTREAM_URL  the floor for any proxy on this machine: a bare Bun.serve
//                                                          that forwards `{"arguments":{"id":N}}` to UPSTREAM/items/N
//                                                          with fetch and answers the upstream's JSON in an envelope,
//                                                          with no auth, database or checks
//
// Both answer any GET with a small JSON, so a caller can wait for them to be ready.
export {}

const [mode, portArg, upstreamUrl] = process.argv.slice(2)
const port = Number(portArg)
if (mode === 'upstream') {
  Bun.serve({
    hostname: '127.0.0.1',
    port,
    fetch: (request) => Response.json({ id: new URL(request.url).pathname.split('/').pop(), ok: true }),
  })
} else if (mode === 'proxy' && upstreamUrl) {
  Bun.serve({
    hostname: '127.0.0.1',
    port,
    async fetch(request) {
      if (request.method !== 'POST') return Response.json({ ready: true })
      const { arguments: args } = (await request.json()) as { arguments: { id: number } }
      const res = await fetch(`${upstreamUrl}/items/${args.id}`)
      return Response.json({ status: res.status, headers: {}, body: await res.json() })
    },
  })
} else {
  console.error('usage: loopback.ts upstream PORT | proxy PORT UPSTREAM_URL')
  process.exit(2)
}
