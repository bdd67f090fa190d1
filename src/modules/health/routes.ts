// GET /api/health, /api/health/live, /api/health/ready: public, for people, load balancers and systemd (docs/api.md "Health").
import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import { NullableDateTime } from '../../platform/http/schema-pieces.ts'
import type { HealthService } from './service.ts'

const Check = t.Union([t.Literal('pass'), t.Literal('warn'), t.Literal('fail')])
const Probe = t.Object({ status: Check })

const HealthReport = t.Object({
  status: Check,
  version: t.String(),
  uptime_s: Type.Integer(),
  instance_id: t.String({ description: 'This process among the instances serving one database; new at every start' }),
  provisioned: t.Boolean(),
  license: t.Object({
    status: t.Union([t.Literal('valid'), t.Literal('grace'), t.Literal('expired'), t.Literal('none')]),
    mode: t.Union([t.Literal('production'), t.Literal('test')]),
    expires_at: NullableDateTime,
    evaluation: t.Boolean({ description: 'True while the instance runs on the 30-day evaluation started at setup' }),
  }),
  checks: t.Object({
    database: t.Object({
      status: Check,
      kind: t.Union([t.Literal('sqlite'), t.Literal('postgres')], {
        description: 'sqlite (the file in the data directory) or postgres (AGENTBOX_DATABASE_URL)',
      }),
      latency_ms: t.Union([t.Number(), t.Null()]),
    }),
    scheduler: t.Object({
      status: Check,
      jobs: Type.Integer(),
      leader: t.Boolean({ description: 'Whether this instance dispatches scheduled runs: always with SQLite, one instance at a time on PostgreSQL' }),
    }),
    disk: t.Object({ status: Check, free_bytes: t.Union([t.Number(), t.Null()]) }),
    proxy: t.Object(
      {
        status: t.Union([t.Literal('pass'), t.Literal('warn')]),
        untrusted_forwarded_requests: Type.Integer({ minimum: 0 }),
        last_seen_at: NullableDateTime,
        detail: t.Union([t.String(), t.Null()]),
      },
      {
        description:
          'warn for an hour after a request carried X-Forwarded-For from a peer that is not in AGENTBOX_TRUSTED_PROXIES (the header is then ignored)',
      },
    ),
  }),
})

export function healthRoutes(health: HealthService) {
  const tags = ['health']
  return new Elysia({ name: 'health-routes' })
    .get(
      '/api/health',
      async ({ set }) => {
        const report = await health.report()
        set.status = report.status === 'fail' ? 503 : 200
        set.headers['cache-control'] = 'no-store'
        return report
      },
      { response: { 200: HealthReport, 503: HealthReport }, detail: { tags, summary: 'Health report: 200 for pass or warn, 503 for fail', security: [] } },
    )
    .get('/api/health/live', () => ({ status: 'pass' as const }), {
      response: { 200: Probe },
      detail: { tags, summary: 'Liveness: the process answers', security: [] },
    })
    .get(
      '/api/health/ready',
      async ({ set }) => {
        const ready = await health.isReady()
        set.status = ready ? 200 : 503
        return { status: ready ? ('pass' as const) : ('fail' as const) }
      },
      { response: { 200: Probe, 503: Probe }, detail: { tags, summary: 'Readiness: database open and migrated', security: [] } },
    )
}
