// The rows behind external MCP servers: the servers, each user's connections, pending OAuth authorizations. Reads and
// writes in one place (parameterised through Kysely); what the rows mean is the services' business.
import type { Kysely } from 'kysely'
import type { Database } from '../../platform/db/schema.ts'
import type { McpServerConnectionKind, McpServerConnectionsTable, McpServersTable } from '../../platform/db/tables/mcp-servers.ts'

export type ServerRow = McpServersTable
export type ConnectionRow = McpServerConnectionsTable

export function serverByName(db: Kysely<Database>, name: string): Promise<ServerRow | undefined> {
  return db.selectFrom('mcp_servers').selectAll().where('name', '=', name).executeTakeFirst()
}

export function serverById(db: Kysely<Database>, id: string): Promise<ServerRow | undefined> {
  return db.selectFrom('mcp_servers').selectAll().where('id', '=', id).executeTakeFirst()
}

export function allServers(db: Kysely<Database>): Promise<ServerRow[]> {
  return db.selectFrom('mcp_servers').selectAll().orderBy('name').execute()
}

export async function connectionsOf(db: Kysely<Database>, userId: string): Promise<Map<string, ConnectionRow>> {
  const rows = await db.selectFrom('mcp_server_connections').selectAll().where('user_id', '=', userId).execute()
  return new Map(rows.map((row) => [row.server_id, row]))
}

export function connectionOf(db: Kysely<Database>, serverId: string, userId: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('mcp_server_connections').selectAll().where('server_id', '=', serverId).where('user_id', '=', userId).executeTakeFirst()
}

/** A new (or renewed) connection: a fresh stamp, no problem. */
export async function saveConnection(
  db: Kysely<Database>,
  connection: { serverId: string; userId: string; kind: McpServerConnectionKind; at: string; revocationEndpoint?: string | null },
): Promise<void> {
  const fields = {
    kind: connection.kind,
    connected_at: connection.at,
    problem: null,
    problem_at: null,
    revocation_endpoint: connection.revocationEndpoint ?? null,
  }
  await db
    .insertInto('mcp_server_connections')
    .values({ server_id: connection.serverId, user_id: connection.userId, ...fields })
    .onConflict((oc) => oc.columns(['server_id', 'user_id']).doUpdateSet(fields))
    .execute()
}

export async function removeConnection(db: Kysely<Database>, serverId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('mcp_server_connections').where('server_id', '=', serverId).where('user_id', '=', userId).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/**
 * Marks the connection made at `connectedAt` as broken, with why. False when it was replaced meanwhile (the user
 * connected again): a new token is never blamed for the old one's failure.
 */
export async function markBroken(db: Kysely<Database>, serverId: string, userId: string, connectedAt: string, problem: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('mcp_server_connections')
    .set({ problem, problem_at: at })
    .where('server_id', '=', serverId)
    .where('user_id', '=', userId)
    .where('connected_at', '=', connectedAt)
    .where('problem', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Everything of a server except its row: connections and pending authorizations (its sealed secrets go with the vault). */
export async function removeServerData(db: Kysely<Database>, serverId: string): Promise<void> {
  await db.deleteFrom('mcp_server_connections').where('server_id', '=', serverId).execute()
  await db.deleteFrom('mcp_server_authorizations').where('server_id', '=', serverId).execute()
}
