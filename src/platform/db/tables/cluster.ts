// Tables several instances on one database share (migration 0024).

/** One counter per kind of cached data; bumped in the transaction that changes the data. */
export interface ClusterRevisionsTable {
  name: string
  value: number
}

export interface ClusterTables {
  cluster_revisions: ClusterRevisionsTable
}
