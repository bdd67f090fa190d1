// Paging of agent and version lists: limit/offset, no limit by default (the agent list is never capped, spec Limits).
import { validationFailed, type ValidationIssue } from '../../platform/http/http-error.ts'

/** Pagination of lists: no limit means everything (the agent list is never capped, spec Limits). */
export interface Page {
  limit?: number
  offset?: number
}

/** 422 for paging bounds, all at once (the schema only checks that they are integers). */
export function checkPage(page: Page): Page {
  const issues: ValidationIssue[] = []
  if (page.limit !== undefined && page.limit < 1) issues.push({ loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: page.limit, ctx: { ge: 1 } })
  if (page.offset !== undefined && page.offset < 0) issues.push({ loc: ['query', 'offset'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: page.offset, ctx: { ge: 0 } })
  if (issues.length > 0) throw validationFailed(...issues)
  return page
}
