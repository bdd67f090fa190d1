// Every migration, imported statically so they ship inside the compiled binary (no folder is read at run time).
import type { Migration } from 'kysely'
import * as m0001 from './0001_init.ts'

/** Names sort in the order they run; append, never rename or reorder. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '0001_init': m0001,
})
