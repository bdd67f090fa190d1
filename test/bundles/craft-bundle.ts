// Bundles assembled by the tests with fflate's own zipSync (not the product's writer), with a manifest that lists every
// file and its SHA-256 unless the test overrides it.
import { zipSync } from 'fflate'
import { manifestFor } from './helpers.ts'

export function craftBundle(files: Record<string, string | Uint8Array>, manifest: Record<string, unknown> = {}, rawManifest?: string): Uint8Array {
  const withoutManifest = Object.fromEntries(Object.entries(files).filter(([path]) => path !== 'manifest.json'))
  const entries: Record<string, Uint8Array> = {}
  for (const [path, content] of Object.entries(withoutManifest)) entries[path] = typeof content === 'string' ? new TextEncoder().encode(content) : content
  entries['manifest.json'] = new TextEncoder().encode(rawManifest ?? manifestFor(withoutManifest, manifest))
  return zipSync(entries)
}
