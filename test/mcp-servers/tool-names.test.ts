// The names external tools get: `<server>__<tool>` within the tool-name rules, distinct and stable.
import { describe, expect, test } from 'bun:test'
import { gatewayToolNames } from '../../src/modules/mcp-servers/tool-names.ts'
import { isToolName } from '../../src/platform/tools/tool.ts'

describe('gatewayToolNames', () => {
  test('characters model APIs refuse become _', () => {
    expect(gatewayToolNames('wiki', ['search', 'pages.get', 'a b/c', 'ünïcode'])).toEqual(['wiki__search', 'wiki__pages_get', 'wiki__a_b_c', 'wiki___n_code'])
  })

  test('two names that clean up alike stay distinct; the first keeps the plain name', () => {
    const names = gatewayToolNames('wiki', ['a.b', 'a_b', 'a/b'])
    expect(names[0]).toBe('wiki__a_b')
    expect(new Set(names).size).toBe(3)
    expect(names.every(isToolName)).toBe(true)
  })

  test('long names are cut to 64 characters and end in a hash of the original, the same every time', () => {
    const server = 'a-server-name-that-is-quite-long-indeed'
    const tools = ['list_every_open_issue_of_the_repository_with_labels', 'list_every_open_issue_of_the_repository_with_owners']
    const names = gatewayToolNames(server, tools)
    expect(names.every((name) => name.length <= 64 && isToolName(name))).toBe(true)
    expect(names[0]).not.toBe(names[1])
    expect(names[0]!.startsWith(`${server}__list_every`)).toBe(true)
    expect(gatewayToolNames(server, tools)).toEqual(names)
  })
})
