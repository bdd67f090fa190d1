// The applications revision: moved by every write to applications, their operations and skills (this module is their
// only writer), so the outbound call and the tool surfaces keep what they read (the application, the parsed operation)
// until something changes, instead of reading and parsing it on every call. Credentials have their own revision, in
// the secrets subsystem (platform/secrets), moved by every credential change. Both are shared by every instance on one
// database (platform/cluster).
import { type Revision, RevisionCache } from '../../platform/revision.ts'

export type ApplicationsRevision = Revision

export { RevisionCache }
