// The baseline for the HTTP bench: bare Bun.serve answering every request with a JSON body the size of GET /api/auth/me.
// Usage: bun scripts/bench/bare-server.ts PORT
const port = Number(process.argv[2] ?? 0)

Bun.serve({
  hostname: '127.0.0.1',
  port,
  fetch() {
    // Same shape and about the same size (~100 bytes) as /api/auth/me; serialised per request, as the real handler does.
    return Response.json({ id: '019aa5c4-6f1e-7b2a-9c3d-4e5f60718293', email: 'admin@example.com', name: 'Ada Admin', role: 'admin' })
  },
})
