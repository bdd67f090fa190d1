// Items one user owns and may share with everyone (applications now; templates and bundles next): admins and the owner
// see one, every member sees a shared one. Here, not in a module, so that modules using another's items (an agent's
// applications) apply the same rule without importing that module.
import type { Principal } from './principal.ts'

export interface SharedItem {
  readonly owner_id: string
  /** 1 when shared with every member (an application's `global_spec`). */
  readonly global_spec: number
}

export const canSeeShared = (principal: Principal, item: SharedItem): boolean =>
  principal.role === 'admin' || item.global_spec === 1 || item.owner_id === principal.userId
