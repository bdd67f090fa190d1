// The chat capability as the server wires it: the copilot's turns over the agent toolbox, the threads, the user's
// settings and the model providers; external MCP servers' tools join through a port (ExternalTools) their module fills.
import type { ModelProviders } from '../../llm/registry.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { ThreadsService } from '../threads/index.ts'
import type { Toolbox } from '../toolbox/index.ts'
import type { ChatSettings } from './instructions.ts'
import { chatRoutes } from './routes.ts'
import { ChatService, type ExternalTools } from './service.ts'

export type ChatModule = CapabilityModule<ChatService>

export interface ChatModuleDependencies {
  readonly toolbox: Toolbox
  readonly threads: ThreadsService
  readonly settings: { get(userId: string): Promise<ChatSettings> }
  readonly providers: ModelProviders
  /** The caller's external MCP servers' tools; null (the default) until their module provides them. */
  readonly externalTools?: ExternalTools | null
}

export function createChatModule(ctx: ModuleContext, deps: ChatModuleDependencies): ChatModule {
  const service = new ChatService({ db: ctx.database.db, logger: ctx.logger, leases: ctx.cluster.leases, ...deps })
  return {
    routes: chatRoutes(ctx.guard, service),
    service,
    // Turns still running at shutdown are interrupted and keep what they produced.
    stop: () => service.stop(),
  }
}
