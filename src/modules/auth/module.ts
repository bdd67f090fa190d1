// The auth capability as the server wires it: sign-in with its throttle, the caller's identity, password and API tokens.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { Passwords } from './passwords.ts'
import { LoginRateLimiter } from './rate-limit.ts'
import { authRoutes } from './routes.ts'
import { AuthService } from './service.ts'

export interface AuthModuleDeps {
  /** The key access tokens are signed with: made at setup (tenant), null before. */
  readonly accessTokenKey: () => Buffer | null
  readonly passwords: Passwords
  /** How the login throttle waits before checking a password on an account under attack (tests record instead). */
  readonly sleep?: (ms: number) => Promise<void>
}

export type AuthModule = CapabilityModule<AuthService>

export function createAuthModule(ctx: ModuleContext, deps: AuthModuleDeps): AuthModule {
  const service = new AuthService({
    db: ctx.database.db,
    clock: ctx.clock,
    sleep: deps.sleep,
    limiter: new LoginRateLimiter(ctx.clock),
    passwords: deps.passwords,
    accessTokenKey: deps.accessTokenKey,
  })
  return { routes: authRoutes(ctx.guard, service), service }
}
