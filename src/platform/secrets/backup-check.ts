// What `agentbox backup` says about the sealed secrets it copied: how many of each kind, and whether the keys file
// written beside the copy opens every one of them. A value whose key is not in the keyring already could not be opened
// on this instance; the backup says so instead of letting a restore find out.
import { CREDENTIALS_KEY_FILE, keyIdsInKeyring } from './secret-box.ts'

/** Counted by the backup from its copy (platform/db/backup.ts sealedSecretsIn). */
export interface SealedCount {
  readonly namespace: string
  readonly keyId: string
  readonly values: number
}

export interface BackupSecretsReport {
  /** One line for stdout: the sealed secrets by namespace, and whether their keys travel with the copy. */
  readonly summary: string
  /** Lines for stderr: values whose key is missing from the keyring, by key. */
  readonly warnings: string[]
}

/** `keyring` is the text of the keyring copied to FILE.keys, or null when the data dir has none. */
export function backupSecretsReport(counts: readonly SealedCount[], keyring: string | null, keysFile: string | null): BackupSecretsReport {
  if (counts.length === 0) return { summary: 'sealed secrets: none', warnings: [] }
  const byNamespace = new Map<string, number>()
  for (const count of counts) byNamespace.set(count.namespace, (byNamespace.get(count.namespace) ?? 0) + count.values)
  const listed = [...byNamespace].map(([namespace, values]) => `${values} ${namespace}`).join(', ')
  const known = new Set(keyring === null ? [] : (keyIdsInKeyring(keyring) ?? []))
  const missing = new Map<string, { values: number; namespaces: Set<string> }>()
  for (const count of counts) {
    if (known.has(count.keyId)) continue
    const entry = missing.get(count.keyId) ?? { values: 0, namespaces: new Set<string>() }
    entry.values += count.values
    entry.namespaces.add(count.namespace)
    missing.set(count.keyId, entry)
  }
  const warnings = [...missing].map(
    ([keyId, entry]) =>
      `${entry.values} sealed secret(s) (${[...entry.namespaces].join(', ')}) need key "${keyId}", which secrets/${CREDENTIALS_KEY_FILE} does not hold: they cannot be opened, before or after a restore, until reconnected`,
  )
  const keys = missing.size === 0 ? `every key they need is in ${keysFile}` : 'some of their keys are missing (see the warnings)'
  return { summary: `sealed secrets: ${listed}; ${keys}`, warnings }
}
