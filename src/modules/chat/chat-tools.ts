// The tools one chat turn offers its model: the agent's set (the same tools as its MCP endpoint, from the toolbox) and
// the caller's external MCP servers' tools (`<server>__<tool>`), fixed when the turn starts from the caller's rights.
// Each tool remembers the set it came from, because that set is what runs and records its calls.
import type { ToolDefinition } from '../../llm/provider.ts'
import type { ToolMode } from '../../platform/tools/tool.ts'
import type { ToolDescription, ToolSet } from '../toolbox/index.ts'

export interface ChatTool {
  /** The set that runs the tool (toolbox.run with this set). */
  readonly set: ToolSet
  readonly description: ToolDescription
  /** Whether the set is the agent's (its workflows' approvals are linked in the chat). */
  readonly fromAgent: boolean
}

/** The model's view of a set's tools, made once per set (sets are kept by the toolbox, so turns share it). */
const definitionsOf = new WeakMap<readonly ToolDescription[], ToolDefinition[]>()

function definitions(described: readonly ToolDescription[]): ToolDefinition[] {
  let made = definitionsOf.get(described)
  if (!made) {
    made = described.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }))
    definitionsOf.set(described, made)
  }
  return made
}

/** A set in the mode the turn asked for, whatever its source answered: a mock turn never runs a tool for real. */
export function inMode(set: ToolSet, mode: ToolMode): ToolSet {
  return set.mode === mode ? set : { ...set, mode }
}

export class ChatTools {
  readonly #byName = new Map<string, ChatTool>()
  readonly #definitions: ToolDefinition[] = []

  /** `agent` first: an external tool whose name an agent tool already has is left out. */
  constructor(agent: ToolSet | null, external: ToolSet | null) {
    for (const [set, fromAgent] of [
      [agent, true],
      [external, false],
    ] as const) {
      if (!set) continue
      const described = set.described()
      const defined = definitions(described)
      for (const [index, description] of described.entries()) {
        if (this.#byName.has(description.name)) continue
        this.#byName.set(description.name, { set, description, fromAgent })
        this.#definitions.push(defined[index]!)
      }
    }
  }

  /** What the model is offered, in order: the agent's tools, then the external ones. */
  get definitions(): ToolDefinition[] {
    return this.#definitions
  }

  /** The tool of this turn named `name`, or undefined: a name the model invented, or one the caller was not given. */
  find(name: string): ChatTool | undefined {
    return this.#byName.get(name)
  }

  get size(): number {
    return this.#byName.size
  }
}
