// What several instances on one database share (migration 0024).

/** One counter per kind of cached data; bumped in the transaction that changes the data. */
export interface ClusterRevisionsTable {
  name: string
  value: number
}

/**
 * The sign-in throttle's recent attempts per key (an account, an address, an (account, address) pair, a known
 * browser), on PostgreSQL, where every instance must count the same failures. `times` is a JSON array of epoch ms.
 */
export interface LoginThrottleTable {
  key: string
  times: string
  /** Epoch ms of the last change: rows untouched for a whole window are deleted. */
  updated_at: number
}

/**
 * What every instance's secrets directory must match: `keyring` (the key id that seals new values) and
 * `access_token_key` (a SHA-256 of the signing key, never the key). Written at first boot and on rotation.
 */
export interface SharedKeysTable {
  name: string
  fingerprint: string
}

/**
 * Work that runs once at a time across every instance (migration 0026), by key (`ui_template_sync:<application id>`,
 * `chat_turn:<thread id>`): taken when absent or expired, renewed while the work runs, deleted when it ends.
 */
export interface LeasesTable {
  key: string
  /** A new id per taking: only the taker renews or releases it. */
  holder: string
  /** The instance that took it (Cluster.instanceId). */
  instance_id: string
  /** Epoch ms after which any instance may take it (its holder died, or stopped renewing). */
  expires_at: number
}

export interface ClusterTables {
  cluster_revisions: ClusterRevisionsTable
  leases: LeasesTable
  login_throttle: LoginThrottleTable
  shared_keys: SharedKeysTable
}
