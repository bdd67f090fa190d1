// The OAuth capability as the server wires it: the authorization server for the instance's own MCP endpoints, the
// console's consent and connected-clients API, and the housekeeping of expired codes, tokens and grants.
import { Elysia } from 'elysia'
import type { OutboundClient } from '../../platform/outbound/outbound-client.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { publicOrigin } from '../../platform/http/public-origin.ts'
import { oauthApiRoutes, oauthRoutes } from './routes.ts'
import { OauthService } from './service.ts'

export { OauthError, OauthTokenError } from './errors.ts'
export { OAUTH_OWN_BODY } from './request-body.ts'
export { OAUTH_ACCESS_TOKEN_PREFIX, OAUTH_REFRESH_TOKEN_PREFIX } from './tokens.ts'
export type { OauthService } from './service.ts'

const PRUNE_MS = 10 * 60 * 1000

export type OauthModule = CapabilityModule<OauthService>

export function createOauthModule(ctx: ModuleContext, deps: { outbound: OutboundClient }): OauthModule {
  const service = new OauthService(ctx.database.db, ctx.clock, deps.outbound)
  const routes = new Elysia({ name: 'oauth' })
    .use(oauthRoutes(service, publicOrigin(ctx.config.publicUrl), ctx.config.publicUrl !== null))
    .use(oauthApiRoutes(ctx.guard, service))
  return {
    routes,
    service,
    start() {
      ctx.jobs.every('oauth housekeeping', PRUNE_MS, () => service.prune())
    },
  }
}
