// The cast most access tests need, on one provisioned server: an admin (with the organisation token) and three
// members named by the part they play with a shared resource.
import { type StartOptions, startTestServer, type TestServer } from './server.ts'

export interface Person {
  id: string
  token: string
}

export interface People {
  t: TestServer
  /** The admin's access token (ADMIN in server.ts). */
  admin: string
  /** The organisation token setup returned. */
  org: string
  /** Creates things and shares them. */
  owner: Person
  /** Is given access to what owner shares. */
  viewer: Person
  /** Is given nothing. */
  outsider: Person
}

export async function startWithPeople(options: StartOptions = {}): Promise<People> {
  const t = await startTestServer(options)
  const { adminToken, orgToken } = await t.provision()
  const [owner, viewer, outsider] = await Promise.all(['owner', 'viewer', 'outsider'].map((part) => t.createUser(adminToken, { email: `${part}@example.com` })))
  return { t, admin: adminToken, org: orgToken, owner: owner!, viewer: viewer!, outsider: outsider! }
}
