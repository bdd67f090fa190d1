// The console's three assets (index.html, app.js, app.css): embedded in the compiled binary, built in memory from source otherwise.
import { join } from 'node:path'

export interface ConsoleAssets {
  readonly html: string
  readonly js: Uint8Array
  readonly css: Uint8Array
}

/** Paths of the pre-built files inside the binary ($bunfs), registered by the generated compile entry (scripts/build.ts). */
export interface EmbeddedConsoleFiles {
  readonly html: string
  readonly js: string
  readonly css: string
}

let embedded: EmbeddedConsoleFiles | undefined
let loading: Promise<ConsoleAssets> | undefined

export function registerEmbeddedConsole(files: EmbeddedConsoleFiles): void {
  embedded = files
  loading = undefined
}

const WEB_DIR = join(import.meta.dir, '..', '..', 'web')

/**
 * Bundles src/web/main.ts with Bun.build, all in memory. Used by scripts/build.ts (to write the files it embeds) and by
 * `npm start` / `bun test` from source, so a fresh clone needs no generated files checked in or built beforehand.
 */
export async function buildConsoleFromSource(webDir = WEB_DIR): Promise<ConsoleAssets> {
  const result = await Bun.build({
    entrypoints: [join(webDir, 'main.ts')],
    target: 'browser',
    format: 'esm',
    minify: true,
  })
  if (!result.success) throw new AggregateError(result.logs, 'console build failed')
  const js = result.outputs.find((o) => o.path.endsWith('.js'))
  if (!js) throw new Error('console build produced no app.js')
  // The stylesheet is plain CSS (no imports, no preprocessing): served as written.
  const [html, css] = await Promise.all([Bun.file(join(webDir, 'index.html')).text(), Bun.file(join(webDir, 'styles.css')).bytes()])
  return { html, js: new Uint8Array(await js.arrayBuffer()), css }
}

async function readEmbedded(files: EmbeddedConsoleFiles): Promise<ConsoleAssets> {
  return {
    html: await Bun.file(files.html).text(),
    js: await Bun.file(files.js).bytes(),
    css: await Bun.file(files.css).bytes(),
  }
}

/** Loaded once per process, on the first console request (servers that only answer the API never bundle anything). */
export function consoleAssets(): Promise<ConsoleAssets> {
  if (!loading) {
    loading = embedded ? readEmbedded(embedded) : buildConsoleFromSource()
    // A failed build is retried on the next request rather than cached forever.
    loading.catch(() => (loading = undefined))
  }
  return loading
}
