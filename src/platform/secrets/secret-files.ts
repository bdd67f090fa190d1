// Files in the secrets directory (<data>/secrets unless AGENTBOX_SECRETS_DIR names another; 0700 dir, 0600 files):
// the setup token, the access-token signing key and the secret box's keyring (secret-box.ts). Instances sharing one
// database share this directory.
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export class SecretStore {
  readonly dir: string

  /** `dir`: the configured secrets directory; by default the data directory's `secrets/`. */
  constructor(dataDir: string, dir: string = join(dataDir, 'secrets')) {
    this.dir = dir
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

  /**
   * Like `write`, but only if there is no such file yet (a hard link fails on an existing name, atomically, also on a
   * shared mount): of two instances making the same file at once, one wins and the other reads the winner's.
   * Returns false when the file existed.
   */
  create(name: string, value: string): boolean {
    const file = join(this.dir, name)
    const temporary = `${file}.new-${process.pid}`
    rmSync(temporary, { force: true })
    const fd = openSync(temporary, 'wx', 0o600)
    try {
      writeSync(fd, value + '\n')
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    try {
      linkSync(temporary, file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw error
    } finally {
      rmSync(temporary, { force: true })
    }
    const directory = openSync(this.dir, 'r')
    try {
      fsyncSync(directory)
    } finally {
      closeSync(directory)
    }
    return true
  }

  /** The names of the files whose name starts with `prefix`. */
  list(prefix: string): string[] {
    return readdirSync(this.dir).filter((name) => name.startsWith(prefix))
  }

  remove(name: string): void {
    rmSync(join(this.dir, name), { force: true })
  }
}
