// Which database an instance runs on: the SQLite file in its data directory (the default), or a PostgreSQL server.

export type DatabaseKind = 'sqlite' | 'postgres'

/** Everything another connection (a worker's, a backup's) needs to reach the same database. */
export type DatabaseTarget = { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string }

/** The URL with its password replaced, for logs and messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return 'postgres://…'
  }
}

/** True for the URL schemes PostgreSQL clients accept. */
export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url)
