// Dry runs' step data (outputs for llm steps, decisions for gates), read by node id.

/** The caller's dry-run data for a node: own entries only, so an id like `toString` never reads a prototype method. */
export function stepDataOf(stepData: Record<string, unknown>, nodeId: string): unknown {
  return Object.hasOwn(stepData, nodeId) ? stepData[nodeId] : undefined
}
