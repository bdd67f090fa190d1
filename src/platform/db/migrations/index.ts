// Every migration, imported statically so they ship inside the compiled binary (no folder is read at run time).
import type { Migration } from 'kysely'
import * as m0001 from './0001_init.ts'
import * as m0002 from './0002_interactions.ts'
import * as m0003 from './0003_agents.ts'
import * as m0004 from './0004_tasks.ts'
import * as m0005 from './0005_workflows.ts'
import * as m0006 from './0006_interaction_user_rollup.ts'
import * as m0007 from './0007_applications.ts'
import * as m0008 from './0008_insights.ts'
import * as m0009 from './0009_oauth.ts'
import * as m0010 from './0010_application_skills.ts'
import * as m0011 from './0011_insights_user_monthly_tools.ts'
import * as m0012 from './0012_sessions_and_registrations.ts'
import * as m0013 from './0013_interaction_history.ts'
import * as m0014 from './0014_threads.ts'
import * as m0015 from './0015_sealed_secrets_and_documents.ts'
import * as m0019 from './0019_marketplace.ts'
import * as m0020 from './0020_ui_templates.ts'
import * as m0021 from './0021_gpt_apps.ts'
import * as m0022 from './0022_thread_message_metadata.ts'
import * as m0023 from './0023_mcp_servers.ts'
import * as m0024 from './0024_cluster.ts'
import * as m0025 from './0025_interaction_usage_statement_triggers.ts'
import * as m0026 from './0026_leases_and_gpt_key_failures.ts'
import * as m0027 from './0027_mcp_client_names.ts'
import * as m0028 from './0028_interaction_usage_counted_per_batch.ts'
import * as m0029 from './0029_interaction_rollup_watermark.ts'
import * as m0030 from './0030_daily_usage_by_month.ts'

/** Names sort in the order they run; append, never rename or reorder. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '0001_init': m0001,
  '0002_interactions': m0002,
  '0003_agents': m0003,
  '0004_tasks': m0004,
  '0005_workflows': m0005,
  '0006_interaction_user_rollup': m0006,
  '0007_applications': m0007,
  '0008_insights': m0008,
  '0009_oauth': m0009,
  '0010_application_skills': m0010,
  '0011_insights_user_monthly_tools': m0011,
  '0012_sessions_and_registrations': m0012,
  '0013_interaction_history': m0013,
  '0014_threads': m0014,
  '0015_sealed_secrets_and_documents': m0015,
  '0019_marketplace': m0019,
  '0020_ui_templates': m0020,
  '0021_gpt_apps': m0021,
  '0022_thread_message_metadata': m0022,
  '0023_mcp_servers': m0023,
  '0024_cluster': m0024,
  '0025_interaction_usage_statement_triggers': m0025,
  '0026_leases_and_gpt_key_failures': m0026,
  '0027_mcp_client_names': m0027,
  '0028_interaction_usage_counted_per_batch': m0028,
  '0029_interaction_rollup_watermark': m0029,
  '0030_daily_usage_by_month': m0030,
})
