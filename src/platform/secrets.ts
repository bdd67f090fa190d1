// Files under <data>/secrets (0700 dir, 0600 files): the setup token and the access-token signing key.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export class SecretStore {
  readonly dir: string

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'secrets')
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    chmodSync(this.dir, 0o700)
  }

  read(name: string): string | null {
    const file = join(this.dir, name)
    return existsSync(file) ? readFileSync(file, 'utf8').trim() : null
  }

  /** Written to a temporary name and renamed, so a crash never leaves a truncated secret. */
  write(name: string, value: string): void {
    const file = join(this.dir, name)
    const temporary = `${file}.tmp-${process.pid}`
    writeFileSync(temporary, value + '\n', { mode: 0o600 })
    chmodSync(temporary, 0o600)
    renameSync(temporary, file)
  }

  remove(name: string): void {
    rmSync(join(this.dir, name), { force: true })
  }
}
