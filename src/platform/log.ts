// Structured logging: one JSON object per line on stdout (CONTRACT §1), filtered by level, written in batches.

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

export function createLogger(level: LogLevel, sink: LogSink = batchedStdout()): Logger {
  const threshold = LOG_LEVELS.indexOf(level)
  const enabled = (lvl: LogLevel) => LOG_LEVELS.indexOf(lvl) >= threshold
  const write = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (!enabled(lvl)) return
    sink(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }), lvl === 'warn' || lvl === 'error')
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
