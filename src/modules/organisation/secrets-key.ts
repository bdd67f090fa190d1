// Rotating the key that seals stored secrets: a new key becomes current, every sealed value is moved to it, and keys
// no value uses any more are removed from secrets/credentials.key. One rotation at a time.
import type { Kysely } from 'kysely'
import { writeAudit } from '../../platform/audit.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { KeyedLock } from '../../platform/keyed-lock.ts'
import type { SealedValueStore, SecretBox } from '../../platform/secret-box.ts'

export interface RotationResult {
  key_id: string
  reencrypted: number
  /** Values whose key is missing (a database restored without its keys file): left as they are, still not connected. */
  unreadable: number
  retired_key_ids: string[]
}

export class SecretsKeyRotation {
  readonly #lock = new KeyedLock()

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly stores: readonly SealedValueStore[],
  ) {}

  rotate(actorId: string): Promise<RotationResult> {
    return this.#lock.run('rotate', async () => {
      const keyId = this.box.rotate()
      let reencrypted = 0
      let unreadable = 0
      const inUse = new Set<string>([keyId])
      for (const store of this.stores) {
        const result = await store.reencryptAll(this.box)
        reencrypted += result.reencrypted
        unreadable += result.unreadable
        for (const kid of result.keyIdsInUse) inUse.add(kid)
      }
      const retired = this.box.keyIds.filter((kid) => !inUse.has(kid))
      for (const kid of retired) this.box.retireKey(kid)
      await writeAudit(this.db, this.clock, {
        actor_id: actorId,
        action: 'secrets_key.rotate',
        target_type: 'secrets_key',
        target_id: keyId,
        details: { reencrypted, unreadable, retired_key_ids: retired },
      })
      return { key_id: keyId, reencrypted, unreadable, retired_key_ids: retired }
    })
  }
}
