// The names external tools get in chat and at the gateway: `<server>__<tool>`, of [A-Za-z0-9_-] and at most 64
// characters (what MCP clients and model APIs accept). A server's name is kebab-case and never holds `_`, so the prefix
// keeps two servers' tools apart; within one server, two tools whose names clean up alike, or a name cut to its head,
// end in a hash of the original, so every name stays distinct and the same from one listing to the next.
import { sha256Hex } from '../../platform/ids.ts'

const MAX_NAME = 64
const HASH = 8

const withHash = (name: string, raw: string) => `${name.slice(0, MAX_NAME - HASH - 1)}_${sha256Hex(raw).slice(0, HASH)}`

/** The gateway names of `tools` (a server's tool names, in its order). */
export function gatewayToolNames(server: string, tools: readonly string[]): string[] {
  const taken = new Set<string>()
  return tools.map((tool) => {
    const raw = `${server}__${tool}`
    let name = raw.replace(/[^A-Za-z0-9_-]/g, '_')
    if (name.length > MAX_NAME || taken.has(name)) name = withHash(name, raw)
    taken.add(name)
    return name
  })
}
