// 0015 (issue 27): one table for every sealed secret, and the API descriptions applications were imported from.
//
// Steps performed:
// 1. create sealed_secrets (namespace, subject, owner, name → sealed value);
// 2. copy every application credential into it under the namespace `app_credential`, unchanged: the sealed value's
//    associated data was already `app_credential:<application>:<owner>:<scheme>`, which is what the secrets subsystem
//    binds for (namespace, subject, owner, name), so every value opens as before and no key is needed to migrate
//    (a database restored without its keys migrates too, and still says "not connected" after);
// 3. drop application_credentials;
// 4. create application_documents (one compressed document per application revision).
import { type Kysely, sql } from 'kysely'

/** The two tables as this migration sees them (the application's own types follow the latest schema). */
interface Tables {
  application_credentials: { application_id: string; scheme: string; owner: string; sealed: string; updated_at: string; updated_by: string }
  sealed_secrets: { namespace: string; subject: string; owner: string; name: string; sealed: string; updated_at: string; updated_by: string }
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Tables>
  await db.schema
    .createTable('sealed_secrets')
    .addColumn('namespace', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sealed_secrets_pk', ['namespace', 'subject', 'owner', 'name'])
    .execute()
  // One person's secrets of a kind (their MCP server connections); the key serves everything by subject.
  await db.schema.createIndex('sealed_secrets_owner').on('sealed_secrets').columns(['namespace', 'owner']).execute()

  await db
    .insertInto('sealed_secrets')
    .columns(['namespace', 'subject', 'owner', 'name', 'sealed', 'updated_at', 'updated_by'])
    .expression(
      db
        .selectFrom('application_credentials')
        .select([sql.lit('app_credential').as('namespace'), 'application_id', 'owner', 'scheme', 'sealed', 'updated_at', 'updated_by']),
    )
    .execute()
  await db.schema.dropTable('application_credentials').execute()

  await db.schema
    .createTable('application_documents')
    .addColumn('application_id', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('media_type', 'text', (c) => c.notNull())
    .addColumn('filename', 'text')
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    // Binary: SQLite's blob (PostgreSQL's bytea when that dialect arrives).
    .addColumn('content', 'blob', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('application_documents_pk', ['application_id', 'revision'])
    .execute()
}

export async function down(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Tables>
  await db.schema.dropTable('application_documents').execute()
  await db.schema
    .createTable('application_credentials')
    .addColumn('application_id', 'text', (c) => c.notNull())
    .addColumn('scheme', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('application_credentials_pk', ['application_id', 'owner', 'scheme'])
    .execute()
  await db
    .insertInto('application_credentials')
    .columns(['application_id', 'owner', 'scheme', 'sealed', 'updated_at', 'updated_by'])
    .expression(
      db.selectFrom('sealed_secrets').select(['subject', 'owner', 'name', 'sealed', 'updated_at', 'updated_by']).where('namespace', '=', 'app_credential'),
    )
    .execute()
  await db.schema.dropTable('sealed_secrets').execute()
}
