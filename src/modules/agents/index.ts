// The agents module's public entry: what other modules may use of agents (access, documents, the design operations).
export {
  authorizeAgent,
  applicationsOf,
  getAgent,
  OWNERS_ONLY_DESIGN,
  readDraft,
  readLive,
  saveAgent,
  type AgentRow,
  type AgentsStore,
  type ApplicationUse,
  type ApplicationUsesCheck,
} from './service.ts'
export type { AgentDesignStore } from './draft.ts'
export { PublishBody, SaveAgentBody } from './schema.ts'
export { publishAgentVersion } from './versions.ts'
export { MAX_NAME_LENGTH, NAME_PATTERN, normaliseAgentName } from './names.ts'
export { readSourceDocument, updateDraft, type AgentDocument, type DocumentItem } from './service.ts'
// Bundles: any version read, and an agent created and filled from a bundle.
export { AGENT_NOT_FOUND, agentNameIssue, agentNameTaken, createAgent, readVersion } from './service.ts'
export type { AgentRecord } from './service.ts'
export { VERSION_NOT_FOUND } from './versions.ts'
export { Agent, CreateAgentBody } from './schema.ts'
