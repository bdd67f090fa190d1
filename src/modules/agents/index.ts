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
export { agentNameIssue, normaliseAgentName } from './names.ts'
export { PublishBody, SaveAgentBody } from './schema.ts'
export { publishAgentVersion } from './versions.ts'
