// Structured logging: one JSON object per line on stdout, filtered by level, written in batches.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']

export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  /** Lets hot paths skip building fields for a line that would be dropped. */
  isEnabled(level: LogLevel): boolean
}

/** Receives finished lines; `urgent` lines (warnings, errors) must not wait for a batch. */
export type LogSink = (line: string, urgent: boolean) => void

const BATCH_LINES = 256

/**
 * Lines written in the same turn of the event loop go out in one write: under load that turns a write(2) per
 * request into one per batch. Warnings and errors flush at once, and so does process exit.
 */
export function batchedStdout(): LogSink & { flush(): void } {
  let pending: string[] = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const chunk = pending.join('\n') + '\n'
    pending = []
    process.stdout.write(chunk)
  }
  process.on('exit', flush)
  const sink = (line: string, urgent: boolean) => {
    pending.push(line)
    if (urgent || pending.length >= BATCH_LINES) flush()
    else if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
  return Object.assign(sink, { flush })
}

let isoMillisecond = 0
let isoString = ''

/** The current time as ISO 8601, formatted once per millisecond: a busy server writes dozens of lines in one. */
function isoTimeNow(): string {
  const now = Date.now()
  if (now !== isoMillisecond) {
    isoMillisecond = now
    isoString = new Date(now).toISOString()
  }
  return isoString
}

/**
 * One JSON log line: `time`, `level` and `msg` first, then the fields. Concatenated rather than
 * `JSON.stringify({ time, level, msg, ...fields })`: at info every request writes a line, and the object spread and
 * a `toISOString()` per line were most of the access log's cost (docs/benchmarks.md). Fields cannot replace the
 * first three keys.
 */
export function formatLogLine(level: LogLevel, msg: string, fields?: LogFields): string {
  const head = '{"time":"' + isoTimeNow() + '","level":"' + level + '","msg":' + JSON.stringify(msg)
  if (fields === undefined) return head + '}'
  let rest = fields
  if (Object.hasOwn(fields, 'time') || Object.hasOwn(fields, 'level') || Object.hasOwn(fields, 'msg')) {
    const { time: _time, level: _level, msg: _msg, ...others } = fields
    rest = others
  }
  const encoded = JSON.stringify(rest)
  return encoded.length > 2 ? head + ',' + encoded.slice(1) : head + '}'
}

export function createLogger(level: LogLevel, sink: LogSink = batchedStdout()): Logger {
  const threshold = LOG_LEVELS.indexOf(level)
  const enabled = (lvl: LogLevel) => LOG_LEVELS.indexOf(lvl) >= threshold
  const write = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (!enabled(lvl)) return
    sink(formatLogLine(lvl, msg, fields), lvl === 'warn' || lvl === 'error')
  }
  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    isEnabled: enabled,
  }
}

/** Serialises an error for the log only: the stack never reaches a response. */
export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) return { error: error.message, error_name: error.name, stack: error.stack }
  return { error: String(error) }
}
