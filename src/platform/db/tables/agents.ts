// Tables of migration 0003_agents: agents, drafts, versions and members (issue 5).

/** One row per agent, with what a list shows mirrored from the draft and the live version. */
export interface AgentsTable {
  id: string
  /** Lowercase kebab-case, unique; the agent's address (`/api/agents/{name}`, `/agent/{name}/mcp`), never renamed. */
  name: string
  /** The draft's description (owners see it in lists). */
  description: string
  /** SHA-256 of the draft document's canonical JSON. */
  draft_hash: string
  /** The version chat, tasks and the MCP URL use; null until the first publish. */
  live_version: number | null
  /** The live version's description (viewers and admins see it in lists). */
  live_description: string | null
  /** The live version's hash: the Draft chip shows while it differs from draft_hash. */
  live_hash: string | null
  /** User id of the creator. */
  created_by: string
  created_at: string
  /** Last change of any kind: save, publish, switch live. */
  updated_at: string
}

/** The editable draft: one JSON document carrying every part (description, instructions, skills, workflows, UI templates). */
export interface AgentDraftsTable {
  agent_id: string
  document: string
  updated_at: string
  updated_by: string
}

/** An immutable snapshot of a whole draft document (a trigger refuses updates). */
export interface AgentVersionsTable {
  agent_id: string
  version: number
  document: string
  hash: string
  note: string | null
  created_at: string
  created_by: string
}

export type AgentMemberRole = 'owner' | 'viewer'

export interface AgentMembersTable {
  agent_id: string
  user_id: string
  role: AgentMemberRole
  added_at: string
  added_by: string
}

export interface AgentsTables {
  agents: AgentsTable
  agent_drafts: AgentDraftsTable
  agent_versions: AgentVersionsTable
  agent_members: AgentMembersTable
}
