// CPU limits for benchmarked processes, as a container runtime sets them (`docker run --cpus`, Kubernetes'
// `resources.limits.cpu`): a cgroup per process with a CFS quota. On a machine with few cores this is what lets a
// benchmark measure what a second instance adds when each instance is bound by its own share of CPU, as on separate
// containers, instead of all of them competing for the same idle cores. Linux only, and only where the cgroup
// hierarchy is writable (root, or a delegated subtree); cgroup v1 (`cpu` controller) and v2 (`cpu.max`).
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The CFS period container runtimes use by default (`docker run --cpu-period`, Kubernetes): 100 ms. */
export const DEFAULT_PERIOD_US = 100_000
const V1_ROOT = '/sys/fs/cgroup/cpu'
const V2_ROOT = '/sys/fs/cgroup'

type Version = 'v1' | 'v2'

function version(): Version | null {
  if (existsSync(join(V1_ROOT, 'cpu.cfs_quota_us'))) return 'v1'
  if (existsSync(join(V2_ROOT, 'cgroup.controllers')) && readFileSync(join(V2_ROOT, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')) return 'v2'
  return null
}

/** One process's cgroup: its quota can change between runs (null: no limit); removed by `remove`. */
export class CpuLimit {
  private constructor(
    readonly path: string,
    readonly version: Version,
    readonly periodUs: number,
  ) {}

  /**
   * A new cgroup named `name` under the root of the cpu hierarchy, or an Error saying why not (no cgroup cpu
   * controller, or not writable: run as root, or give the benchmark a delegated cgroup). `periodUs` is the CFS period
   * the quota is counted over: at the default 100 ms, a process capped at 0.25 CPU runs for 25 ms and then is stopped
   * for 75 ms; a shorter period spreads the same share more evenly.
   */
  static create(name: string, periodUs = DEFAULT_PERIOD_US): CpuLimit | Error {
    const v = version()
    if (v === null) return new Error('no cgroup cpu controller found (neither /sys/fs/cgroup/cpu nor cgroup v2 with cpu enabled)')
    const path = join(v === 'v1' ? V1_ROOT : V2_ROOT, name)
    try {
      mkdirSync(path)
      const limit = new CpuLimit(path, v, periodUs)
      limit.set(null)
      return limit
    } catch (error) {
      try {
        rmdirSync(path)
      } catch {
        // never made, or not removable: the mkdir's error is the one to report
      }
      return new Error(`cannot make a cgroup at ${path} (${(error as Error).message}): run as root or in a delegated cgroup`)
    }
  }

  /** Moves a process (all its threads, and the children it starts later) into this cgroup. */
  add(pid: number): void {
    writeFileSync(join(this.path, 'cgroup.procs'), String(pid))
  }

  /** Caps the cgroup at `cores` CPUs (0.4: 40 ms of CPU time per 100 ms period), or lifts the cap (null). */
  set(cores: number | null): void {
    const quota = cores === null ? null : Math.round(cores * this.periodUs)
    if (this.version === 'v1') {
      writeFileSync(join(this.path, 'cpu.cfs_period_us'), String(this.periodUs))
      writeFileSync(join(this.path, 'cpu.cfs_quota_us'), quota === null ? '-1' : String(quota))
    } else writeFileSync(join(this.path, 'cpu.max'), `${quota === null ? 'max' : quota} ${this.periodUs}`)
  }

  /** Periods elapsed and periods in which the cgroup was throttled (it had used its quota), since it was made. */
  throttling(): { periods: number; throttled: number } {
    const stat = Object.fromEntries(
      readFileSync(join(this.path, 'cpu.stat'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    )
    return { periods: Number(stat.nr_periods ?? 0), throttled: Number(stat.nr_throttled ?? 0) }
  }

  /**
   * Moves whatever is left in the cgroup back to the root (a cgroup with processes cannot be removed, and a killed
   * process may not be reaped yet) and removes it. Synchronous: callable from an exit handler.
   */
  remove(): void {
    const root = this.version === 'v1' ? V1_ROOT : V2_ROOT
    // A process killed just before may still be listed until the kernel has torn it down: retry for up to 2 s.
    for (const deadline = performance.now() + 2000; ; ) {
      try {
        for (const pid of readFileSync(join(this.path, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
          try {
            writeFileSync(join(root, 'cgroup.procs'), pid)
          } catch {
            // exited in between
          }
        }
        rmdirSync(this.path)
        return
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
        if (performance.now() > deadline) {
          console.error(`could not remove the cgroup ${this.path}: ${(error as Error).message}`)
          return
        }
        Bun.sleepSync(10)
      }
    }
  }
}
