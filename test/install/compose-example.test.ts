// docs/examples/compose.yaml, the several-instances example of docs/operations.md: well-formed YAML in the Compose
// file's shape, every reference resolved, and only settings and commands the binary knows.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseDocument } from 'yaml'
import { USAGE } from '../../src/config.ts'

const ROOT = join(import.meta.dir, '..', '..')
const text = readFileSync(join(ROOT, 'docs', 'examples', 'compose.yaml'), 'utf8')
const CONFIG_SOURCE = readFileSync(join(ROOT, 'src', 'config.ts'), 'utf8')

type Service = {
  image?: string
  command?: string[]
  environment?: Record<string, string>
  volumes?: string[]
  depends_on?: Record<string, { condition: string }>
  configs?: { source: string; target: string }[]
  profiles?: string[]
  cpus?: number
}

describe('docs/examples/compose.yaml', () => {
  const document = parseDocument(text, { uniqueKeys: true, merge: true })
  const compose = document.toJS({ maxAliasCount: 100 }) as {
    services: Record<string, Service>
    volumes: Record<string, unknown>
    configs: Record<string, { content: string }>
  }
  const instances = Object.entries(compose.services).filter(([name]) => name.startsWith('agentbox-'))

  test('parses as YAML without errors, warnings or duplicate keys', () => {
    expect(document.errors.map((e) => e.message)).toEqual([])
    expect(document.warnings.map((w) => w.message)).toEqual([])
  })

  test('every dependency, volume and config it names is declared', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const dependency of Object.keys(service.depends_on ?? {}))
        expect({ name, dependency, declared: dependency in compose.services }).toMatchObject({ declared: true })
      for (const mount of service.volumes ?? []) {
        const source = mount.split(':')[0]!
        if (!source.startsWith('.') && !source.startsWith('/')) expect({ name, source, declared: source in compose.volumes }).toMatchObject({ declared: true })
      }
      for (const config of service.configs ?? []) expect(config.source in compose.configs).toBe(true)
    }
  })

  test('two or more instances on one database, each with its own data directory and the same secrets directory', () => {
    expect(instances.length).toBeGreaterThanOrEqual(2)
    const urls = new Set(instances.map(([, s]) => s.environment?.AGENTBOX_DATABASE_URL))
    expect(urls.size).toBe(1)
    expect([...urls][0]).toMatch(/^postgres:\/\/agentbox:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\/agentbox$/)
    const dataVolumes = instances.map(([, s]) => s.volumes!.find((v) => v.endsWith(':/data')))
    expect(new Set(dataVolumes).size).toBe(instances.length)
    for (const [, service] of instances) {
      expect(service.volumes).toContain('secrets:/data/secrets')
      expect(service.command).toEqual(['/usr/local/bin/agentbox', 'serve', '--data', '/data', '--port', '8080'])
      // A CPU limit each, as operations.md advises: uncapped instances compete with each other and PostgreSQL.
      expect(service.cpus).toBeGreaterThan(0)
    }
  })

  test('only settings the binary reads, and commands its usage lists', () => {
    for (const [, service] of Object.entries(compose.services))
      for (const name of Object.keys(service.environment ?? {}).filter((key) => key.startsWith('AGENTBOX_')))
        expect({ name, read: CONFIG_SOURCE.includes(name) }).toEqual({ name, read: true })
    for (const [, service] of Object.entries(compose.services)) {
      if (service.command?.[0] !== '/usr/local/bin/agentbox') continue
      expect(USAGE).toMatch(new RegExp(`^  agentbox \\[?${service.command![1]}\\b`, 'm'))
      for (const flag of service.command.filter((part) => part.startsWith('--'))) expect(USAGE).toContain(flag)
    }
  })

  test('the load balancer sends to every instance on its port, to the least busy first, and checks readiness', () => {
    const caddyfile = compose.configs.caddyfile!.content
    for (const [name] of instances) expect(caddyfile).toContain(`${name}:8080`)
    // Round robin keeps sending to an instance at its CPU limit while the other idles (docs/operations.md).
    expect(caddyfile).toContain('lb_policy least_conn')
    expect(caddyfile).toContain('health_uri /api/health/ready')
    expect(Object.keys(compose.services.lb!.depends_on!).sort()).toEqual(instances.map(([name]) => name).sort())
  })
})
