// A bundle's files read and checked, before anything is written: the manifest (format, version, every file named with
// its SHA-256 and none left out), agent.json, each skill and workflow as the API would check it, the applications'
// documents (parsed later, by the applications module). Every problem is reported at once, located at the upload
// (`["body","file"]`) with the file it is in.
import { createHash } from 'node:crypto'
import { Value } from '@sinclair/typebox/value'
import type { TSchema } from '@sinclair/typebox'
import { type InputIssue, invalidInput } from '../../platform/errors.ts'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../platform/http/body.ts'
import { toValidationIssues } from '../../platform/http/validation.ts'
import { agentNameIssue, type ApplicationUse } from '../agents/index.ts'
import { readApiName } from '../applications/index.ts'
import { skillFromBundle, type StoredSkill } from '../skills/index.ts'
import { type BundledWorkflow, checkBundledWorkflow } from '../workflows/index.ts'
import { AGENT_PATH, AgentFile, BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, MANIFEST_PATH, Manifest, MAX_REPORTED_ISSUES, WORKFLOW_ID } from './format.ts'
import type { ApplicationFilesPart, PartFiles } from './parts.ts'
import { TimeSlice } from './time-slice.ts'

export interface BundleSkill {
  /** The folder's name, which the frontmatter's name must match. */
  name: string
  path: string
  /** The skill as checked; its id and times are given when it is stored. */
  skill: StoredSkill
}

export interface BundleWorkflow extends BundledWorkflow {
  id: string
}

export interface BundleApplication {
  apiName: string
  path: string
  content: Uint8Array
  sha256: string
  /** Each part's files, relative to the application's folder. */
  parts: Map<ApplicationFilesPart, PartFiles>
}

export interface BundleContents {
  manifest: Manifest
  agent: AgentFile & { applications: ApplicationUse[] }
  skills: BundleSkill[]
  workflows: BundleWorkflow[]
  applications: BundleApplication[]
}

const utf8 = new TextDecoder('utf-8', { fatal: true })
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

const SKILL_PATH = /^skills\/([^/]+)\/SKILL\.md$/
const WORKFLOW_PATH = /^workflows\/([^/]+)\.json$/
const APPLICATION_PATH = /^applications\/([^/]+)\/(.+)$/
const DOCUMENT_NAME = /^openapi\.(json|yaml|yml)$/

/** A problem in one file of the bundle, as a 422 entry on the upload. */
export function fileIssue(path: string | null, msg: string, type = 'bundle_invalid', ctx: Record<string, unknown> = {}): InputIssue {
  return { loc: ['file'], msg: path ? `${path}: ${msg}` : msg, type, ctx: path ? { path, ...ctx } : ctx }
}

/** Issues found inside a file's value (`['definition', 'nodes', 0]`), moved onto the upload with their place kept in ctx. */
export function issuesInFile(path: string, issues: readonly InputIssue[]): InputIssue[] {
  return issues.map((issue) =>
    fileIssue(path, issue.loc.length > 0 ? `${issue.loc.join('.')}: ${issue.msg}` : issue.msg, issue.type, { ...issue.ctx, loc: issue.loc }),
  )
}

/** Refuses with every issue, the list cut to MAX_REPORTED_ISSUES with a last entry saying how many more there were. */
export function refuse(issues: InputIssue[]): never {
  if (issues.length <= MAX_REPORTED_ISSUES) throw invalidInput(...issues)
  const more = issues.length - (MAX_REPORTED_ISSUES - 1)
  throw invalidInput(...issues.slice(0, MAX_REPORTED_ISSUES - 1), fileIssue(null, `…and ${more} more problems`, 'bundle_invalid', { more }))
}

class FileReader {
  readonly issues: InputIssue[] = []
  constructor(readonly files: Map<string, Uint8Array>) {}

  text(path: string): string | null {
    const bytes = this.files.get(path)
    if (!bytes) return null
    try {
      return utf8.decode(bytes)
    } catch {
      this.issues.push(fileIssue(path, 'not valid UTF-8'))
      return null
    }
  }

  json(path: string): unknown {
    const text = this.text(path)
    if (text === null) return undefined
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      this.issues.push(fileIssue(path, `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, 'json_invalid'))
      return undefined
    }
    try {
      return JSON.parse(text)
    } catch (error) {
      this.issues.push(fileIssue(path, `invalid JSON (${(error as Error).message})`, 'json_invalid'))
      return undefined
    }
  }

  /** The value if it matches `schema` (unknown fields dropped, as the API drops them), else undefined with the issues noted. */
  checked<S extends TSchema>(path: string, schema: S, value: unknown): S['static'] | undefined {
    if (value === undefined) return undefined
    if (Value.Check(schema, value)) return Value.Clean(schema, Value.Clone(value)) as S['static']
    const issues = toValidationIssues('', [...Value.Errors(schema, value)], value, schema as never).map(({ loc, ...rest }) => ({ ...rest, loc: loc.slice(1) }))
    this.issues.push(...issuesInFile(path, issues))
    return undefined
  }
}

function readManifest(reader: FileReader): Manifest {
  const value = reader.json(MANIFEST_PATH)
  if (!reader.files.has(MANIFEST_PATH)) refuse([fileIssue(null, 'The archive has no manifest.json: it is not an Agentbox bundle')])
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { format, format_version } = value as Record<string, unknown>
    if (format !== BUNDLE_FORMAT) refuse([fileIssue(MANIFEST_PATH, `format is ${JSON.stringify(format)}, not "${BUNDLE_FORMAT}": not an Agentbox bundle`)])
    if (format_version !== BUNDLE_FORMAT_VERSION) {
      const newer = typeof format_version === 'number' && format_version > BUNDLE_FORMAT_VERSION
      refuse([
        fileIssue(
          MANIFEST_PATH,
          newer
            ? `format_version ${format_version} comes from a newer Agentbox; this server reads format_version ${BUNDLE_FORMAT_VERSION}`
            : `format_version should be ${BUNDLE_FORMAT_VERSION}`,
          'bundle_version',
          { format_version: format_version ?? null, supported: BUNDLE_FORMAT_VERSION },
        ),
      ])
    }
  }
  const manifest = reader.checked(MANIFEST_PATH, Manifest, value)
  if (!manifest) refuse(reader.issues)
  return manifest
}

/** Every file is named in the manifest with its hash, and every file named is there. */
function checkInventory(reader: FileReader, manifest: Manifest): void {
  for (const [path, bytes] of reader.files) {
    if (path === MANIFEST_PATH) continue
    const listed = manifest.files[path]
    if (listed === undefined) reader.issues.push(fileIssue(path, 'the file is not listed in manifest.json'))
    else if (listed !== sha256(bytes)) reader.issues.push(fileIssue(path, 'its SHA-256 does not match manifest.json', 'hash_mismatch', { expected: listed }))
  }
  for (const path of Object.keys(manifest.files)) {
    if (!reader.files.has(path)) reader.issues.push(fileIssue(path, 'manifest.json lists this file but the archive does not hold it', 'file_missing'))
  }
}

async function readSkills(reader: FileReader, paths: string[], order: string[], slice: TimeSlice): Promise<BundleSkill[]> {
  const byName = new Map<string, BundleSkill>()
  for (const path of paths) {
    await slice.next()
    const name = SKILL_PATH.exec(path)![1]!
    const content = reader.text(path)
    if (content === null) continue
    const checked = skillFromBundle(content, name, '')
    if ('issues' in checked) reader.issues.push(...issuesInFile(path, checked.issues))
    else byName.set(name, { name, path, skill: checked.skill })
  }
  checkOrder(
    reader,
    'skills',
    order,
    paths.map((path) => SKILL_PATH.exec(path)![1]!),
    (name) => `skills/${name}/SKILL.md`,
  )
  return order.flatMap((name) => byName.get(name) ?? [])
}

async function readWorkflows(reader: FileReader, paths: string[], order: string[], slice: TimeSlice): Promise<BundleWorkflow[]> {
  const byId = new Map<string, BundleWorkflow>()
  const names = new Map<string, string>()
  for (const path of paths) {
    await slice.next()
    const id = WORKFLOW_PATH.exec(path)![1]!
    if (!WORKFLOW_ID.test(id)) {
      reader.issues.push(fileIssue(path, 'a workflow id is 1 to 64 letters, digits, hyphens or underscores'))
      continue
    }
    const value = reader.json(path)
    if (value === undefined) continue
    const { id: inFile, ...body } = (value ?? {}) as Record<string, unknown>
    if (inFile !== id) reader.issues.push(fileIssue(path, `its id should be "${id}", the file's name`))
    const checked = checkBundledWorkflow(body)
    if ('issues' in checked) {
      reader.issues.push(...issuesInFile(path, checked.issues))
      continue
    }
    const other = names.get(checked.workflow.name)
    if (other) reader.issues.push(fileIssue(path, `another workflow (${other}) is named '${checked.workflow.name}'`, 'name_taken'))
    names.set(checked.workflow.name, path)
    byId.set(id, { id, ...checked.workflow })
  }
  checkOrder(
    reader,
    'workflows',
    order,
    paths.map((path) => WORKFLOW_PATH.exec(path)![1]!),
    (id) => `workflows/${id}.json`,
  )
  return order.flatMap((id) => byId.get(id) ?? [])
}

/** agent.json's list and the files agree: each listed once, each file listed. */
function checkOrder(reader: FileReader, part: string, listed: string[], found: string[], pathOf: (key: string) => string): void {
  const present = new Set(found)
  const seen = new Set<string>()
  for (const key of listed) {
    if (seen.has(key)) reader.issues.push(fileIssue(AGENT_PATH, `${part} lists '${key}' twice`))
    else if (!present.has(key)) reader.issues.push(fileIssue(AGENT_PATH, `${part} lists '${key}', but ${pathOf(key)} is not in the archive`, 'file_missing'))
    seen.add(key)
  }
  for (const key of found) if (!seen.has(key)) reader.issues.push(fileIssue(pathOf(key), `agent.json does not list it in ${part}`))
}

function readApplications(reader: FileReader, paths: string[], uses: ApplicationUse[], parts: readonly ApplicationFilesPart[]): BundleApplication[] {
  const folders = new Map<string, string[]>()
  for (const path of paths) {
    const [, apiName, rest] = APPLICATION_PATH.exec(path)!
    folders.set(apiName!, [...(folders.get(apiName!) ?? []), rest!])
  }
  const applications: BundleApplication[] = []
  for (const [apiName, files] of folders) {
    const folder = `applications/${apiName}`
    const read = readApiName(apiName, ['file'])
    if ('issue' in read || read.name !== apiName) {
      reader.issues.push(fileIssue(folder, 'an application folder is named by its api_name: lowercase letters, digits and hyphens, at most 64'))
      continue
    }
    const documents = files.filter((file) => DOCUMENT_NAME.test(file))
    if (documents.length !== 1) {
      reader.issues.push(
        fileIssue(folder, documents.length === 0 ? 'the application has no openapi.json or openapi.yaml' : 'the application has more than one document'),
      )
      continue
    }
    const partFiles = new Map<ApplicationFilesPart, PartFiles>(parts.map((part) => [part, new Map()]))
    for (const file of files) {
      if (file === documents[0]) continue
      const part = parts.find((p) => p.claims(file))
      if (!part) {
        reader.issues.push(fileIssue(`${folder}/${file}`, 'this server does not know what this file is'))
        continue
      }
      partFiles.get(part)!.set(file, reader.files.get(`${folder}/${file}`)!)
    }
    for (const [part, mine] of partFiles)
      for (const { path, issue } of part.check(mine)) reader.issues.push({ ...issue, loc: ['file'], ctx: { ...issue.ctx, path: `${folder}/${path}` } })
    const path = `${folder}/${documents[0]}`
    const content = reader.files.get(path)!
    applications.push({ apiName, path, content, sha256: sha256(content), parts: partFiles })
  }
  const used = new Set(uses.map((use) => use.api_name))
  for (const use of uses)
    if (!folders.has(use.api_name))
      reader.issues.push(fileIssue(AGENT_PATH, `applications names '${use.api_name}', which the bundle does not carry`, 'file_missing'))
  for (const apiName of folders.keys())
    if (!used.has(apiName)) reader.issues.push(fileIssue(`applications/${apiName}`, 'agent.json does not use this application'))
  return applications.sort((a, b) => (a.apiName < b.apiName ? -1 : 1))
}

/**
 * The bundle's contents, every part checked as the API checks it; throws a 422 listing every problem otherwise.
 * Application documents are only found here: the applications module parses them (in its worker) before the import.
 */
export async function readContents(files: Map<string, Uint8Array>, parts: readonly ApplicationFilesPart[]): Promise<BundleContents> {
  const reader = new FileReader(files)
  const slice = new TimeSlice()
  const manifest = readManifest(reader)
  checkInventory(reader, manifest)
  const nameIssue = agentNameIssue(manifest.agent, ['file'])
  if (nameIssue) reader.issues.push(fileIssue(MANIFEST_PATH, `agent: ${nameIssue.msg}`, nameIssue.type))
  const skillPaths: string[] = []
  const workflowPaths: string[] = []
  const applicationPaths: string[] = []
  for (const path of files.keys()) {
    if (path === MANIFEST_PATH || path === AGENT_PATH) continue
    if (SKILL_PATH.test(path)) skillPaths.push(path)
    else if (WORKFLOW_PATH.test(path)) workflowPaths.push(path)
    else if (APPLICATION_PATH.test(path)) applicationPaths.push(path)
    else reader.issues.push(fileIssue(path, 'this server does not know what this file is'))
  }
  if (!files.has(AGENT_PATH)) refuse([...reader.issues, fileIssue(AGENT_PATH, 'the archive has no agent.json', 'file_missing')])
  const agentFile = reader.checked(AGENT_PATH, AgentFile, reader.json(AGENT_PATH))
  if (!agentFile) refuse(reader.issues)
  const agent = { ...agentFile, applications: agentFile.applications ?? [] }
  const skills = await readSkills(reader, skillPaths, agent.skills, slice)
  const workflows = await readWorkflows(reader, workflowPaths, agent.workflows, slice)
  const applications = readApplications(reader, applicationPaths, agent.applications, parts)
  if (reader.issues.length > 0) refuse(reader.issues)
  return { manifest, agent, skills, workflows, applications }
}
