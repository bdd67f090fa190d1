// JSON pointers (RFC 6901) into an uploaded API description: how warnings and errors say where a problem is, and
// how internal `$ref`s are followed.

export const escapePointerToken = (token: string | number): string => String(token).replaceAll('~', '~0').replaceAll('/', '~1')

export const pointerOf = (tokens: readonly (string | number)[]): string => tokens.map((token) => `/${escapePointerToken(token)}`).join('')

/** The tokens of a local reference (`#/components/schemas/Pet`), or null when it is not one. */
export function localRefTokens(ref: string): string[] | null {
  if (!ref.startsWith('#')) return null
  const pointer = ref.slice(1)
  if (pointer === '') return []
  if (!pointer.startsWith('/')) return null
  let decoded: string
  try {
    decoded = decodeURIComponent(pointer)
  } catch {
    return null
  }
  return decoded
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
}

/** The value at `tokens`, or undefined. Only own properties: `__proto__` in a pointer finds nothing. */
export function valueAt(root: unknown, tokens: readonly string[]): unknown {
  let node = root
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') return undefined
    if (!Object.hasOwn(node, token)) return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

/** How many `$ref`s a chain may follow before it is taken for a loop. */
const MAX_HOPS = 16

/** Follows a chain of local `$ref`s (at most 16, so a reference cycle ends) to the value it names, or undefined. */
export function followRefs(document: Record<string, unknown>, value: unknown): unknown {
  let node = value
  for (let hops = 0; hops < MAX_HOPS && isObject(node) && typeof node.$ref === 'string'; hops++) {
    const tokens = localRefTokens(node.$ref)
    node = tokens ? valueAt(document, tokens) : undefined
  }
  return node
}

/**
 * Why `value`, a reference, names nothing usable: 'loop' when following it comes back round (or runs past 16
 * references), 'unresolved' when it points at nothing; null when it is not a reference or resolves.
 */
export function brokenRef(document: Record<string, unknown>, value: unknown): 'loop' | 'unresolved' | null {
  if (!isObject(value) || typeof value.$ref !== 'string') return null
  const target = followRefs(document, value)
  if (target === undefined) return 'unresolved'
  return isObject(target) && typeof target.$ref === 'string' ? 'loop' : null
}
