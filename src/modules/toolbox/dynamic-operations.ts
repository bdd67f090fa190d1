// The dynamic mode of a large tool set: above the organisation's `mcp_operation_tool_limit`, find_operations and
// call_operation stand in for one tool per operation, so that an agent over a 1,000-operation API stays usable by a
// model. call_operation runs the very operation tool it names (same execution, credentials, errors and record).
import { Type } from '@sinclair/typebox'
import { ToolError, type Tool } from '../../platform/tools/tool.ts'
import type { OperationInfo, OperationTool } from '../applications/index.ts'
import { OperationSearch } from './operation-search.ts'

export const FIND_OPERATIONS = 'find_operations'
export const CALL_OPERATION = 'call_operation'
const DEFAULT_FOUND = 10
const MAX_FOUND = 50

const FindArgs = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 500, description: 'What the operation does, in a few words (e.g. "list open incidents")' }),
  api_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only operations of this application' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FOUND, description: `How many to return, best first (default ${DEFAULT_FOUND})` })),
})

const CallArgs = Type.Object({
  api_name: Type.String({ minLength: 1, maxLength: 200, description: 'The application, as find_operations named it' }),
  operation_id: Type.String({ minLength: 1, maxLength: 200, description: 'The operation, as find_operations named it' }),
  arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The operation's arguments, per its input_schema" })),
})

const key = (apiName: string, operationId: string) => `${apiName}\n${operationId}`

/** find_operations and call_operation over `operations` (the operation tools the caller would otherwise be listed). */
export function dynamicOperationTools(operations: readonly OperationTool[]): Tool[] {
  const byKey = new Map(operations.map((tool) => [key(tool.operation.apiName, tool.operation.operationId), tool]))
  const applications = [...new Set(operations.map((tool) => tool.operation.apiName))]
  let search: Promise<OperationSearch> | undefined
  const searchable = () => {
    search ??= OperationSearch.build(operations.map((tool) => tool.operation))
    return search
  }
  const listing = applications.length === 1 ? `the ${applications[0]} application` : `the applications ${applications.join(', ')}`

  const findOperations: Tool<typeof FindArgs> = {
    name: FIND_OPERATIONS,
    title: 'Find API operations',
    description:
      `Searches the ${operations.length} operations of ${listing} by name, summary, tags and path, best match first. ` +
      'Each result has its input_schema: call it with call_operation.',
    inputSchema: FindArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async handler(_principal, args) {
      if (args.api_name !== undefined && !applications.includes(args.api_name))
        throw new ToolError('not_found', `No application '${args.api_name}' here: the operations come from ${applications.join(', ')}`)
      const only = args.api_name === undefined ? undefined : (op: OperationInfo) => op.apiName === args.api_name
      const found = (await searchable()).find(args.query, args.limit ?? DEFAULT_FOUND, only)
      return found.map((op) => ({ api_name: op.apiName, operation_id: op.operationId, summary: op.summary, input_schema: op.inputSchema }))
    },
  }

  const callOperation: Tool<typeof CallArgs> = {
    name: CALL_OPERATION,
    title: 'Call an API operation',
    description: `Calls one operation of ${listing} with its arguments (find it with find_operations first), as the caller with their credentials.`,
    inputSchema: CallArgs,
    annotations: { readOnlyHint: false, openWorldHint: true },
    delegate(args) {
      const tool = byKey.get(key(args.api_name, args.operation_id))
      if (!tool) throw new ToolError('not_found', `No operation '${args.operation_id}' in '${args.api_name}' here: find_operations lists the ones you can call`)
      return { tool, arguments: args.arguments ?? {} }
    },
    handler() {
      // The run step runs the operation tool delegate() names; this is never reached through it.
      throw new ToolError('failed', 'call_operation runs through the tool it names')
    },
  }
  return [findOperations, callOperation] as Tool[]
}
