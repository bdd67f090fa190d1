// The client name a legacy (2025-era) caller gave in its initialize, kept for its later requests: stateless legacy
// requests do not carry clientInfo again, and every recorded tool call should still say which client made it.
import { sha256Hex } from '../../platform/ids.ts'

const LIMIT = 10_000

export class ClientNames {
  readonly #names = new Map<string, string>()

  /** `caller` is the user and their bearer token (kept only as a hash), so two clients of one user stay apart when their tokens differ. */
  set(caller: string, name: string): void {
    if (this.#names.size >= LIMIT) this.#names.clear()
    this.#names.set(sha256Hex(caller), name)
  }

  get(caller: string): string | undefined {
    return this.#names.size === 0 ? undefined : this.#names.get(sha256Hex(caller))
  }
}
