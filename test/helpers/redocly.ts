// Redocly CLI's lint of an OpenAPI document (recommended-strict, the repository's redocly.yaml), run offline: no
// telemetry, update check or notices, so the test opens no connection.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const REPO = join(import.meta.dir, '..', '..')

export interface RedoclyLint {
  /** `ruleId pointer: message`, one per problem. */
  readonly problems: string[]
  readonly totals: unknown
  readonly exitCode: number
}

export function lintWithRedocly(documentText: string, fileName = 'openapi.json'): RedoclyLint {
  const dir = mkdtempSync(join(tmpdir(), 'agentbox-redocly-'))
  try {
    const file = join(dir, fileName)
    writeFileSync(file, documentText)
    const lint = Bun.spawnSync(
      [process.execPath, join(REPO, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--config', join(REPO, 'redocly.yaml'), '--format=json'],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
          CI: 'true',
        },
      },
    )
    const report = JSON.parse(lint.stdout.toString())
    return {
      problems: report.problems.map((p: any) => `${p.ruleId} ${p.location?.[0]?.pointer}: ${p.message}`),
      totals: report.totals,
      exitCode: lint.exitCode,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
