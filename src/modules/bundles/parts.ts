// Parts of a bundle that other capabilities add beside an application's document. UI templates belong to an
// application's operations and plug in here: a part names the files it claims under applications/<api_name>/, writes
// them at export, checks them at import before anything is written, and stores them in the import's transaction.
// Files no part claims are refused, so a bundle from a newer server never loses something silently.
import type { Kysely, Transaction } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { InputIssue } from '../../platform/errors.ts'

/** Files by their path relative to the application's folder (`templates/getPet/01….html`). */
export type PartFiles = Map<string, Uint8Array>

export interface ApplicationFilesPart {
  /** What the part is, for messages ("templates"). */
  readonly name: string
  /** Whether `relativePath` (inside applications/<api_name>/) is one of this part's files. */
  claims(relativePath: string): boolean
  /** The part's files for the application, as they are now; deterministic (the same state gives the same bytes). */
  exportFiles(db: Kysely<Database>, applicationId: string): Promise<PartFiles>
  /** Every problem with the files, located as `{loc: ['file'], ctx: {path}}` by the caller from `path`. */
  check(files: PartFiles): { path: string; issue: Omit<InputIssue, 'loc'> }[]
  /** Stores the checked files for the application just imported (or reused: then nothing is stored). */
  store(trx: Transaction<Database>, principal: Principal, applicationId: string, files: PartFiles): Promise<void>
}

/** The parts this server knows: none yet. UI templates join this list once their table exists. */
export const APPLICATION_PARTS: readonly ApplicationFilesPart[] = []
