// Directories a test process makes once and keeps for later test files (the console tests' binary, git working
// copies), removed after the last test file. Bun's test runner fires no process 'exit' event, so a removal hooked
// there never ran: the binary alone left ~150 MB behind per run. test/preload.ts removes them in a global afterAll.
import { rmSync } from 'node:fs'

const dirs = new Set<string>()

/** Removes `dir` (and everything in it) once every test file of this process has run. */
export function removeAtEnd(dir: string): void {
  dirs.add(dir)
}

/** Called once, after every test file (test/preload.ts). */
export function removeAll(): void {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  dirs.clear()
}
