// 0020 (issue 28): UI templates of applications' operations, each application's template repository and the state of
// each template's last sync with it.
//
// Steps performed:
// 1. create ui_templates, with indexes by (application, operation) and (api_name, operation) and a partial unique
//    index that allows one default template per operation;
// 2. create ui_template_repositories (one per application; the token is a sealed secret, not a column);
// 3. create ui_template_sync_state (one row per synced template).
// Every row goes with its application (or template) through ON DELETE CASCADE.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ui_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('application_id', 'text', (c) => c.notNull().references('applications.id').onDelete('cascade'))
    // The application's name (never renamed): what MCP endpoints find templates by, without reading the applications.
    .addColumn('api_name', 'text', (c) => c.notNull())
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull())
    .addColumn('template_format', 'text', (c) => c.notNull())
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('csp_config', 'text')
    .addColumn('ui_meta', 'text')
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('ui_templates_operation').on('ui_templates').columns(['application_id', 'operation_id', 'id']).execute()
  await db.schema.createIndex('ui_templates_api_name').on('ui_templates').columns(['api_name', 'operation_id', 'id']).execute()
  await db.schema
    .createIndex('ui_templates_one_default')
    .on('ui_templates')
    .columns(['application_id', 'operation_id'])
    .unique()
    .where(sql.ref('is_default'), '=', 1)
    .execute()

  await db.schema
    .createTable('ui_template_repositories')
    .addColumn('application_id', 'text', (c) => c.primaryKey().references('applications.id').onDelete('cascade'))
    .addColumn('repo_url', 'text', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('username', 'text')
    .addColumn('author_name', 'text')
    .addColumn('author_email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('ui_template_sync_state')
    .addColumn('template_id', 'text', (c) => c.primaryKey().references('ui_templates.id').onDelete('cascade'))
    .addColumn('commit_sha', 'text', (c) => c.notNull())
    .addColumn('remote_html_blob', 'text', (c) => c.notNull())
    .addColumn('remote_json_blob', 'text', (c) => c.notNull())
    .addColumn('local_html_blob', 'text', (c) => c.notNull())
    .addColumn('local_json_blob', 'text', (c) => c.notNull())
    .addColumn('synced_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ui_template_sync_state').execute()
  await db.schema.dropTable('ui_template_repositories').execute()
  await db.schema.dropTable('ui_templates').execute()
}
