// The organisation's marketplace catalog (migration 0019).

export interface MarketplaceEntriesTable {
  id: string
  /** The agent the entry was published from; the name an install takes unless told otherwise. */
  agent_name: string
  version: number
  /** The version's description. */
  description: string
  /** JSON arrays of names: skills, workflows, applications (api_name), for listings and search. */
  skills: string
  workflows: string
  applications: string
  /** The bundle (zip) as exported when published. */
  bundle: Uint8Array
  /** SHA-256 (hex) of the bundle. */
  sha256: string
  size: number
  /** The publishing admin's user id. */
  published_by: string
  published_at: string
}

export interface MarketplaceTables {
  marketplace_entries: MarketplaceEntriesTable
}
