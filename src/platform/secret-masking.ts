// The one rule for secrets in what the platform keeps of a call (interaction records, whatever their kind or
// transport): values under secret-looking keys are masked at any depth, and the exact secrets a call used (its
// credentials, and the values it passed under secret-looking keys) are masked wherever they appear, including inside
// text an upstream echoed back. Two textual patterns catch what neither rule knows: `Bearer …`/`Basic …` credentials and
// `name=value` pairs in URLs and forms whose name looks secret.

export const MASK = '***'

/** Shorter values are not worth hiding everywhere: masking "ab" in every string would garble records and hide nothing. */
export const MIN_SECRET_LENGTH = 4

/** Found anywhere in a key with its separators removed (`X-Api-Key` → `xapikey`). */
const SECRET_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'authorization',
  'credential',
  'cookie',
  'privatekey',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'authtoken',
  'sessiontoken',
  'sessionid',
  'bearer',
]
/**
 * Whole words of a key (split at separators and camelCase): `token` but not `max_tokens` (a count), `key` but not
 * `keys` or `monkey`, `auth` but not `author`.
 */
const SECRET_WORDS = new Set(['token', 'key', 'auth', 'session', 'pwd', 'pass', 'jwt', 'otp'])
/** A cheap superset of the two lists above, to skip the walk when no key or text can match. */
const MAYBE_SECRET = /token|key|auth|secret|pass|pwd|credential|cookie|session|jwt|otp|bearer|basic/i

const verdicts = new Map<string, boolean>()
const VERDICTS_KEPT = 10_000

/** True for a key whose value must not be kept: `api_key`, `X-Auth-Token`, `password`, `clientSecret`, `Cookie`… */
export function isSecretKey(key: string): boolean {
  const known = verdicts.get(key)
  if (known !== undefined) return known
  const compact = key.toLowerCase().replace(/[^a-z0-9]/g, '')
  const secret =
    SECRET_PARTS.some((part) => compact.includes(part)) ||
    key
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .some((word) => SECRET_WORDS.has(word))
  if (verdicts.size >= VERDICTS_KEPT) verdicts.clear()
  verdicts.set(key, secret)
  return secret
}

const maskable = (value: unknown) => value !== null && value !== undefined && typeof value !== 'boolean'

/** The string and number values under secret-looking keys, at any depth: what a call said was secret. */
export function secretValuesIn(value: unknown, into: Set<string> = new Set()): Set<string> {
  const visit = (node: unknown, depth: number): void => {
    if (depth > 512 || node === null || typeof node !== 'object') return
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1)
      return
    }
    for (const [key, item] of Object.entries(node)) {
      if ((typeof item === 'string' || typeof item === 'number') && isSecretKey(key)) {
        const text = String(item)
        if (text.length >= MIN_SECRET_LENGTH) into.add(text)
      } else visit(item, depth + 1)
    }
  }
  visit(value, 0)
  return into
}

// An HTTP credential written out: a scheme, then a token that looks generated (a digit, two capitals or a symbol), so
// that "Basic Information" stays readable.
const AUTH_CREDENTIAL = /\b(Bearer|Basic)(\s+)([A-Za-z0-9._~+/=-]{12,})/gi
const looksGenerated = (token: string) => /[0-9+/=._~-]/.test(token) || (token.match(/[A-Z]/g)?.length ?? 0) >= 2
// `name=value` in a query string, form or cookie header.
const NAME_VALUE = /(^|[?&;\s])([^=&?#;\s"']{1,100})=([^&#;\s"']*)/g

// Cheap tests that say whether the two patterns can match at all: most text has neither.
const MAYBE_AUTH_CREDENTIAL = /bearer|basic/i
const MAYBE_NAME_VALUE = /(?:token|key|auth|secret|pass|pwd|credential|cookie|session|jwt|otp|bearer)[^=&?#;\s"']{0,100}=/i

/** `text` with every known secret and every secret-looking credential or `name=value` pair replaced by the mask. */
export function maskText(text: string, secrets: ReadonlySet<string> | readonly string[]): string {
  let masked = text
  for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH && masked.includes(secret)) masked = masked.replaceAll(secret, MASK)
  if (MAYBE_AUTH_CREDENTIAL.test(masked))
    masked = masked.replace(AUTH_CREDENTIAL, (whole, scheme: string, space: string, token: string) =>
      looksGenerated(token) ? `${scheme}${space}${MASK}` : whole,
    )
  if (MAYBE_NAME_VALUE.test(masked)) {
    masked = masked.replace(NAME_VALUE, (whole, lead: string, name: string, value: string) => {
      if (value === '' || value === MASK) return whole
      let decoded = name
      try {
        decoded = decodeURIComponent(name)
      } catch {
        // not percent-encoded text: judge the name as written
      }
      return isSecretKey(decoded) ? `${lead}${name}=${MASK}` : whole
    })
  }
  return masked
}

/** How each known secret appears inside JSON text (quotes and backslashes escaped): what the quick check looks for. */
const inJson = (secret: string) => JSON.stringify(secret).slice(1, -1)

/**
 * `value` as JSON text with the rule applied (null for undefined), for storing. Serialised once natively; only when the
 * text holds a secret-looking word or a known secret is it serialised again through the masking walk.
 */
export function maskedJson(value: unknown, secrets: ReadonlySet<string>): string | null {
  if (value === undefined) return null
  const plain = JSON.stringify(value)
  if (plain === undefined) return null
  let suspicious = MAYBE_SECRET.test(plain)
  if (!suspicious) for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH && plain.includes(inJson(secret))) suspicious = true
  if (!suspicious) return plain
  return JSON.stringify(value, function mask(this: unknown, key: string, item: unknown) {
    if (key !== '' && !Array.isArray(this) && maskable(item) && isSecretKey(key)) return MASK
    return typeof item === 'string' ? maskText(item, secrets) : item
  })
}

/** What a record keeps of a call, as stored text. */
export interface MaskedRecord {
  readonly arguments: string | null
  readonly result: string | null
  readonly userInput: string | null
}

/**
 * A call's arguments, result and user input as stored: the values under secret-looking keys of the arguments and the
 * result join `secrets` (the credentials the call used), and every known secret is masked in all three. Serialised
 * once natively; the masking walk runs only when the text could hold a secret.
 */
export function maskedRecord(record: { arguments?: unknown; result?: unknown; userInput?: string }, secrets: readonly string[] = []): MaskedRecord {
  const args = record.arguments === undefined ? null : (JSON.stringify(record.arguments) ?? null)
  const result = record.result === undefined ? null : (JSON.stringify(record.result) ?? null)
  const userInput = record.userInput ?? null
  const suspicious = (text: string | null) => text !== null && MAYBE_SECRET.test(text)
  const holdsKnown = (secret: string) =>
    secret.length >= MIN_SECRET_LENGTH && (args?.includes(inJson(secret)) || result?.includes(inJson(secret)) || userInput?.includes(secret))
  if (!suspicious(args) && !suspicious(result) && !suspicious(userInput) && !secrets.some(holdsKnown)) return { arguments: args, result, userInput }
  const known = secretValuesIn(record.result, secretValuesIn(record.arguments, new Set(secrets)))
  return {
    arguments: args === null ? null : maskedJson(record.arguments, known),
    result: result === null ? null : maskedJson(record.result, known),
    userInput: userInput === null ? null : maskText(userInput, known),
  }
}

/** `value` with the rule applied, as a new value (for callers that keep objects rather than text). */
export function maskSecrets<T>(value: T, secrets: ReadonlySet<string> = new Set()): T {
  const text = maskedJson(value, secrets)
  return (text === null ? value : JSON.parse(text)) as T
}
