// Where a worker's entry file is: next to the module that starts it when running from source, and at its repository
// path inside the compiled binary, where scripts/build.ts embeds it as an extra entry point (WORKER_ENTRIES).

const COMPILED_ROOT = '/$bunfs/root/'

/**
 * `moduleUrl` is the starting module's `import.meta.url`, `fromSource` the worker's path from the repository root
 * (`src/modules/…/x-worker.ts`), `relative` the same file relative to the starting module.
 */
export function workerUrl(moduleUrl: string, relative: string, fromSource: string): string {
  return moduleUrl.includes('/$bunfs/') ? `${COMPILED_ROOT}${fromSource}` : new URL(relative, moduleUrl).href
}
