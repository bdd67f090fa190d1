// Structured logging: one JSON object per line on stdout (CONTRACT §1), filtered by level.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']

export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
}

type Sink = (line: string) => void

const stdoutSink: Sink = (line) => process.stdout.write(line + '\n')

export function createLogger(level: LogLevel, sink: Sink = stdoutSink): Logger {
  const threshold = LOG_LEVELS.indexOf(level)
  const write = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(lvl) < threshold) return
    sink(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }))
  }
  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
  }
}

/** Serialises an error for the log only: the stack never reaches a response. */
export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) return { error: error.message, error_name: error.name, stack: error.stack }
  return { error: String(error) }
}
