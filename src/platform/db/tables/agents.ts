// Tables of migration 0003_agents: agents, drafts, versions and members (issue 5).

export interface AgentsTables {}
