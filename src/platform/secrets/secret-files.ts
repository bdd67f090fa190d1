// Files under <data>/secrets (0700 dir, 0600 files): the setup token, the access-token signing key and the
// secret box's keyring (secret-box.ts).
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
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

  /**
   * Written to a temporary name and renamed, so a crash never leaves a truncated secret. The temporary file is
   * created anew (a stale one would keep its old mode while the secret is written into it) and flushed with its
   * directory before `write` returns: a key whose ciphertexts the database has committed must survive a power cut.
   */
  write(name: string, value: string): void {
    const file = join(this.dir, name)
    const temporary = `${file}.tmp-${process.pid}`
    rmSync(temporary, { force: true })
    const fd = openSync(temporary, 'wx', 0o600)
    try {
      writeSync(fd, value + '\n')
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    chmodSync(temporary, 0o600)
    renameSync(temporary, file)
    const directory = openSync(this.dir, 'r')
    try {
      fsyncSync(directory)
    } finally {
      closeSync(directory)
    }
  }

  remove(name: string): void {
    rmSync(join(this.dir, name), { force: true })
  }
}
