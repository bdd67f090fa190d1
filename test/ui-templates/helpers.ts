// Shared by the UI template tests: a provisioned server with people, an application owned by `owner` (visible to the
// viewer when global), and small templates.
import type { People } from '../helpers/people.ts'
import { petstore, uploadSpec } from '../applications/helpers.ts'

let apps = 0

/**
 * An application: imported by `owner` (seen by them and admins only), or global (only an admin may import one, so the
 * admin owns it and every member sees it without changing it).
 */
export async function ownedApplication(w: People, options: { global?: boolean; createMcp?: boolean; token?: string } = {}): Promise<string> {
  const apiName = `pets-${++apps}`
  const fields: Record<string, string> = { api_name: apiName }
  if (options.createMcp) fields.create_mcp = 'true'
  if (options.global) fields.global_spec = 'true'
  const response = await uploadSpec(w.t, options.token ?? (options.global ? w.admin : w.owner.token), petstore(), fields)
  if (response.status !== 201) throw new Error(`import: ${response.status} ${JSON.stringify(response.body)}`)
  return apiName
}

export const page = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>\n`

export async function createTemplate(w: People, token: string, apiName: string, operationId: string, body: Record<string, unknown> = {}) {
  const response = await w.t.request('POST', `/api/ui-templates/${apiName}/operations/${operationId}`, { token, body: { html: page(operationId), ...body } })
  if (response.status !== 201) throw new Error(`template: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body as { id: string; resource_uri: string; html: string; is_default: boolean; operation_id: string }
}
