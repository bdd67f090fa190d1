// install.sh, exercised only through its --prefix DIR --no-systemd paths (and --print-unit),
// in temporary directories: these tests never touch the real system.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')
const INSTALL = join(ROOT, 'install.sh')

let tmp: string
let prefix: string
let home: string

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'agentbox-install-'))
  prefix = join(tmp, 'prefix')
  home = join(tmp, 'home')
  mkdirSync(home)
})

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true })
})

/** A stand-in for the compiled binary: answers `version` like the real one. */
function stub(name: string, marker: string): string {
  const path = join(tmp, name)
  writeFileSync(path, `#!/bin/sh\n# ${marker}\nif [ "$1" = version ]; then echo "agentbox 9.9.9"; exit 0; fi\necho "stub ${marker}"\n`)
  chmodSync(path, 0o755)
  return path
}

function run(...args: string[]) {
  const proc = Bun.spawnSync(['bash', INSTALL, ...args], {
    cwd: tmp,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() }
}

const local = (...args: string[]) => run('--prefix', prefix, '--no-systemd', ...args)
const bin = () => join(prefix, 'bin', 'agentbox')
const prev = () => join(prefix, 'bin', 'agentbox.prev')

describe('install.sh --prefix DIR --no-systemd', () => {
  test('installs the binary as DIR/bin/agentbox, executable, byte for byte', () => {
    const binary = stub('agentbox-a', 'A')
    const r = local('--binary', binary)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('installed')
    expect(r.stdout).toContain(`${bin()} serve --data ${join(prefix, 'data')}`)
    expect(existsSync(bin())).toBe(true)
    expect(statSync(bin()).mode & 0o777).toBe(0o755)
    expect(readFileSync(bin(), 'utf8')).toBe(readFileSync(binary, 'utf8'))
    expect(existsSync(prev())).toBe(false)
    expect(existsSync(join(prefix, 'bin', 'agentbox.new'))).toBe(false)
  })

  test('re-running with the same binary is a no-op that says already up to date', () => {
    const binary = stub('agentbox-a', 'A')
    expect(local('--binary', binary).code).toBe(0)
    const before = statSync(bin()).mtimeMs
    const r = local('--binary', binary)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('already up to date')
    expect(existsSync(prev())).toBe(false)
    expect(statSync(bin()).mtimeMs).toBe(before)
  })

  test('a different binary upgrades and keeps the previous one as agentbox.prev', () => {
    const a = stub('agentbox-a', 'A')
    const b = stub('agentbox-b', 'B')
    expect(local('--binary', a).code).toBe(0)
    const r = local('--binary', b)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('upgraded')
    expect(readFileSync(bin(), 'utf8')).toBe(readFileSync(b, 'utf8'))
    expect(readFileSync(prev(), 'utf8')).toBe(readFileSync(a, 'utf8'))
    expect(statSync(bin()).mode & 0o111).toBe(0o111)
  })

  test('--uninstall removes the binary and .prev but keeps DIR/data', () => {
    expect(local('--binary', stub('agentbox-a', 'A')).code).toBe(0)
    expect(local('--binary', stub('agentbox-b', 'B')).code).toBe(0)
    mkdirSync(join(prefix, 'data'))
    writeFileSync(join(prefix, 'data', 'agentbox.db'), 'precious')
    const r = local('--uninstall')
    expect(r.code).toBe(0)
    expect(existsSync(bin())).toBe(false)
    expect(existsSync(prev())).toBe(false)
    expect(readFileSync(join(prefix, 'data', 'agentbox.db'), 'utf8')).toBe('precious')
    expect(r.stdout).toContain('kept')
  })

  test('--uninstall --purge deletes an Agentbox data dir (database or lock inside), and an empty one', () => {
    for (const marker of ['agentbox.db', 'agentbox.lock']) {
      expect(local('--binary', stub('agentbox-a', 'A')).code).toBe(0)
      mkdirSync(join(prefix, 'data', 'secrets'), { recursive: true })
      writeFileSync(join(prefix, 'data', marker), 'x')
      const r = local('--uninstall', '--purge')
      expect(r.code).toBe(0)
      expect(existsSync(join(prefix, 'data'))).toBe(false)
      expect(r.stdout).toContain('purged')
    }
    mkdirSync(join(prefix, 'data'))
    expect(local('--uninstall', '--purge').code).toBe(0)
    expect(existsSync(join(prefix, 'data'))).toBe(false)
  })

  test('--uninstall --purge refuses a data dir that Agentbox did not make, and deletes nothing in it (issue 14, item 22)', () => {
    expect(local('--binary', stub('agentbox-a', 'A')).code).toBe(0)
    mkdirSync(join(prefix, 'data'))
    writeFileSync(join(prefix, 'data', 'thesis.tex'), "someone's work")
    const r = local('--uninstall', '--purge')
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('not an Agentbox data directory')
    expect(readFileSync(join(prefix, 'data', 'thesis.tex'), 'utf8')).toBe("someone's work")
    expect(existsSync(bin())).toBe(false)
  })

  test('--uninstall when nothing is installed succeeds and says so', () => {
    const r = local('--uninstall')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('nothing to remove')
  })

  test('without --prefix it installs into $HOME/.local/bin', () => {
    const r = run('--no-systemd', '--binary', stub('agentbox-a', 'A'))
    expect(r.code).toBe(0)
    expect(existsSync(join(home, '.local', 'bin', 'agentbox'))).toBe(true)
  })

  test('a missing binary is refused with a message and installs nothing', () => {
    const r = local('--binary', join(tmp, 'no-such-agentbox'))
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('binary not found')
    expect(existsSync(bin())).toBe(false)
  })

  test('a binary that is not executable is refused', () => {
    const path = join(tmp, 'agentbox-noexec')
    writeFileSync(path, '#!/bin/sh\necho hi\n')
    chmodSync(path, 0o644)
    const r = local('--binary', path)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('not executable')
    expect(existsSync(bin())).toBe(false)
  })

  test('a binary that does not run (`version` fails) is refused', () => {
    const path = join(tmp, 'agentbox-broken')
    writeFileSync(path, "#!/bin/sh\necho 'Illegal instruction' >&2\nexit 132\n")
    chmodSync(path, 0o755)
    const r = local('--binary', path)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('does not run')
    expect(existsSync(bin())).toBe(false)
  })
})

describe('install.sh options', () => {
  test('--help prints the usage and exits 0', () => {
    const r = run('--help')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Usage: install.sh')
    for (const flag of ['--binary', '--prefix', '--no-systemd', '--uninstall', '--purge', '--print-unit']) {
      expect(r.stdout).toContain(flag)
    }
  })

  test('an unknown flag exits non-zero with a message', () => {
    const r = run('--frobnicate')
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('unknown option: --frobnicate')
  })

  test('--binary without a value exits non-zero', () => {
    const r = run('--no-systemd', '--prefix', prefix, '--binary')
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('--binary needs a PATH')
  })

  test('--purge without --uninstall is refused', () => {
    const r = local('--purge')
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('--purge')
  })

  test('--print-unit prints the hardened unit and exits 0', () => {
    const r = run('--print-unit')
    expect(r.code).toBe(0)
    for (const line of [
      'MemoryDenyWriteExecute=no',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'StateDirectory=agentbox',
      'User=agentbox',
      'Group=agentbox',
      'EnvironmentFile=-/etc/agentbox/agentbox.env',
      'ExecStart=/usr/local/bin/agentbox serve --data /var/lib/agentbox',
      'WantedBy=multi-user.target',
      'MemoryHigh=60%',
      'MemoryMax=75%',
    ]) {
      expect(r.stdout.split('\n')).toContain(line)
    }
    expect(r.stdout).toContain('JavaScriptCore JIT')
    expect(r.stdout).not.toMatch(/^LimitAS=/m)
  })

  test('the script has no syntax errors (bash -n)', () => {
    const proc = Bun.spawnSync(['bash', '-n', INSTALL], { stderr: 'pipe' })
    expect(proc.stderr.toString()).toBe('')
    expect(proc.exitCode).toBe(0)
  })

  test.skipIf(!Bun.which('shellcheck'))('the script is shellcheck-clean', () => {
    const proc = Bun.spawnSync(['shellcheck', INSTALL], { stdout: 'pipe', stderr: 'pipe' })
    expect(proc.stdout.toString() + proc.stderr.toString()).toBe('')
    expect(proc.exitCode).toBe(0)
  })
})
