// Paging of task and run lists: limit 1–500 and offset ≥ 0, checked here so a bad value is a 422 naming its query field.
import { validationFailed, type ValidationIssue } from '../../platform/http/http-error.ts'

export const MAX_PAGE = 500

export interface Page {
  limit?: number
  offset?: number
}

export function checkPage({ limit, offset }: Page, defaultLimit: number): { limit: number; offset: number } {
  const issues: ValidationIssue[] = []
  if (limit !== undefined && (limit < 1 || limit > MAX_PAGE)) issues.push({ loc: ['query', 'limit'], msg: `Input should be between 1 and ${MAX_PAGE}`, type: 'value_error', input: limit })
  if (offset !== undefined && offset < 0) issues.push({ loc: ['query', 'offset'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: offset, ctx: { ge: 0 } })
  if (issues.length > 0) throw validationFailed(...issues)
  return { limit: limit ?? defaultLimit, offset: offset ?? 0 }
}
