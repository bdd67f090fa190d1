// Tables of migration 0021_gpt_apps: GPT apps (custom GPTs connected to the organisation) and their keys. A key is
// stored only as its SHA-256 hash, in a table of its own (never api_tokens: a GPT is not a user).

export type GptVisibility = 'private' | 'public'

/** One GPT app. Kept after it is uninstalled (installed = 0), so its history and audit entries keep their subject. */
export interface GptsTable {
  id: string
  /** Agent-name rules (lowercase kebab-case, at most 64); unique among installed GPTs. */
  name: string
  description: string
  instructions: string
  /** JSON array of api_name strings, in the order given. */
  applications: string
  /** The agent whose live tools the GPT offers too, or null. */
  agent_name: string | null
  visibility: GptVisibility
  /** 1 while installed; 0 once uninstalled (its keys stop working, it is no longer listed). */
  installed: number
  installed_at: string
  installed_by_user_id: string
  /** The installing admin's e-mail as it was then. */
  installed_by: string
  uninstalled_at: string | null
  uninstalled_by_user_id: string | null
}

/** A GPT's keys: the current one has revoked_at null; rotation and uninstalling revoke. */
export interface GptKeysTable {
  id: string
  gpt_id: string
  /** SHA-256 hex of the whole key (`abx_gpt_…`); the key itself is never stored. */
  key_hash: string
  /** The last characters, so the console can tell keys apart without revealing them. */
  hint: string
  created_at: string
  created_by_user_id: string
  revoked_at: string | null
}

/**
 * Failed GPT key attempts per client address (migration 0026), on PostgreSQL, where every instance must count the
 * same failures. `times` is a JSON array of epoch ms, the newest GPT_KEY_MAX_FAILURES at most.
 */
export interface GptKeyFailuresTable {
  client: string
  times: string
  /** Epoch ms of the last failure: rows untouched for a whole window are deleted. */
  updated_at: number
}

export interface GptsTables {
  gpts: GptsTable
  gpt_keys: GptKeysTable
  gpt_key_failures: GptKeyFailuresTable
}
