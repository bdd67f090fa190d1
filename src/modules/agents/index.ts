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
} from './service.ts'
export { PublishBody, SaveAgentBody } from './schema.ts'
export { publishAgentVersion } from './versions.ts'
// Bundles: any version read, and an agent created and filled from a bundle.
export { AGENT_NOT_FOUND, agentNameIssue, createAgent, normaliseAgentName, readVersion, updateDraft } from './service.ts'
export type { AgentDocument, AgentRecord, DocumentItem } from './service.ts'
export { VERSION_NOT_FOUND } from './versions.ts'
export { Agent, CreateAgentBody } from './schema.ts'
