// Rotating the key that seals stored secrets, for admins: the vault moves every sealed value of every namespace to a
// new key and retires keys no value uses; the rotation is audited with its counts (never a secret).
import type { Kysely } from 'kysely'
import { writeAudit } from '../../platform/audit.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { KeyRotationResult, SecretVault } from '../../platform/secrets/index.ts'

export class SecretsKeyRotation {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly vault: SecretVault,
  ) {}

  async rotate(actorId: string): Promise<KeyRotationResult> {
    const result = await this.vault.rotateKey()
    await writeAudit(this.db, this.clock, {
      actor_id: actorId,
      action: 'secrets_key.rotate',
      target_type: 'secrets_key',
      target_id: result.key_id,
      details: {
        reencrypted: result.reencrypted,
        unreadable: result.unreadable,
        retired_key_ids: result.retired_key_ids,
        namespaces: Object.fromEntries(result.namespaces.map((entry) => [entry.namespace, entry.values])),
      },
    })
    return result
  }
}
