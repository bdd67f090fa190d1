// Module boundaries: a module reaches another only through what the registry hands it or through that module's one
// public entry (`index.ts`), never its internal files; and a capability's own tables are queried by that capability
// alone (another module asks it). A new import of another module's internals, or a query of another module's tables,
// fails here with the file that does it.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

const MODULES = resolve(import.meta.dir, '../../src/modules')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) ? [path] : []
  })
}

/** The module a file belongs to, or null for files directly under src/modules (the registry, the module context). */
const moduleOf = (file: string): string | null => {
  const parts = relative(MODULES, file).split(sep)
  return parts.length > 1 ? parts[0]! : null
}

const FILES = sourceFiles(MODULES).filter((file) => moduleOf(file) !== null)
const IMPORT = /^(?:import|export)\s+(?:type\s+)?[^;]*?\s+from\s+'(\.[^']+)'/gms

/** Tables only their module queries (the others ask it through what the registry hands them). */
const OWNED_TABLES: Readonly<Record<string, readonly string[]>> = {
  applications: ['applications', 'application_operations', 'application_documents', 'application_skills'],
  agents: ['agents', 'agent_drafts', 'agent_versions', 'agent_members'],
  'mcp-servers': ['mcp_servers', 'mcp_server_connections', 'mcp_server_authorizations'],
  oauth: ['oauth_clients', 'oauth_requests', 'oauth_grants', 'oauth_tokens'],
  tasks: ['tasks', 'task_runs'],
  threads: ['threads', 'thread_messages'],
  'ui-templates': ['ui_templates', 'ui_template_repositories', 'ui_template_sync_state'],
}
const QUERY = /\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|with)\(\s*'([a-z_]+)/g

describe('module boundaries', () => {
  test("no module imports another module's internal files: only its index.ts", () => {
    const crossings: string[] = []
    for (const file of FILES) {
      const from = moduleOf(file)
      for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = resolve(dirname(file), match[1]!)
        if (!target.startsWith(MODULES + sep)) continue
        const to = moduleOf(target)
        if (to === null || to === from) continue
        if (relative(join(MODULES, to), target) !== 'index.ts') crossings.push(`${relative(MODULES, file)} -> ${relative(MODULES, target)}`)
      }
    }
    expect(crossings).toEqual([])
  })

  test("a capability's own tables are queried by that capability alone", () => {
    const owner = new Map(Object.entries(OWNED_TABLES).flatMap(([module, tables]) => tables.map((table) => [table, module] as const)))
    const trespasses: string[] = []
    for (const file of FILES) {
      const from = moduleOf(file)
      for (const match of readFileSync(file, 'utf8').matchAll(QUERY)) {
        const table = match[1]!
        const module = owner.get(table)
        if (module !== undefined && module !== from) trespasses.push(`${relative(MODULES, file)} queries ${table} (owned by ${module})`)
      }
    }
    expect(trespasses).toEqual([])
  })

  test('the checks see what they guard: every module has files, and the owned tables are queried by their owners', () => {
    const queried = new Set(FILES.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(QUERY)].map((match) => match[1]!)))
    for (const tables of Object.values(OWNED_TABLES)) for (const table of tables) expect(queried.has(table)).toBe(true)
    expect(FILES.length).toBeGreaterThan(100)
  })
})
