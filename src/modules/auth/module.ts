// The auth capability as the server wires it: sign-in with its throttle, console sessions (refresh cookie), the
// caller's identity, password and API tokens, and the housekeeping of ended sessions.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { Passwords } from './passwords.ts'
import { LoginRateLimiter } from './rate-limit.ts'
import { StoredLoginThrottle } from './stored-throttle.ts'
import { authRoutes } from './routes.ts'
import { AuthService } from './service.ts'
import { ConsoleSessions } from './sessions.ts'

export interface AuthModuleDeps {
  /** The key access tokens are signed with: made at setup (tenant), null before. */
  readonly accessTokenKey: () => Buffer | null
  readonly passwords: Passwords
  /** How the login throttle waits before checking a password on an account under attack (tests record instead). */
  readonly sleep?: (ms: number) => Promise<void>
}

export type AuthModule = CapabilityModule<AuthService>

const PRUNE_SESSIONS_MS = 10 * 60 * 1000

export function createAuthModule(ctx: ModuleContext, deps: AuthModuleDeps): AuthModule {
  const sessions = new ConsoleSessions(ctx.database.db, ctx.clock)
  // One process (SQLite) keeps the throttle in memory; instances sharing PostgreSQL count in the database.
  const stored = ctx.database.kind === 'postgres' ? new StoredLoginThrottle(ctx.database.db, ctx.clock) : null
  const service = new AuthService({
    db: ctx.database.db,
    clock: ctx.clock,
    sleep: deps.sleep,
    limiter: stored ?? new LoginRateLimiter(ctx.clock),
    sessions,
    passwords: deps.passwords,
    accessTokenKey: deps.accessTokenKey,
  })
  return {
    routes: authRoutes(ctx.guard, service, ctx.config.publicUrl),
    service,
    start() {
      ctx.jobs.every('ended console sessions', PRUNE_SESSIONS_MS, () => service.pruneSessions())
      if (stored) ctx.jobs.every('aged sign-in throttle entries', PRUNE_SESSIONS_MS, () => stored.prune())
    },
  }
}
