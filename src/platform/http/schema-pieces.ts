// Schema pieces several modules share, so one rule reads the same everywhere.
import { t } from 'elysia'

/** A pattern with one meaning: "has a character that is not white space"; validation.ts words its error as such. */
export const NOT_BLANK = '\\S'

/** A name people read in lists (tasks, tokens, users, workflows): 1 to `maxLength` characters, not only spaces. */
export const DisplayName = (maxLength: number) => t.String({ minLength: 1, maxLength, pattern: NOT_BLANK })

/** An instant in responses: ISO 8601 UTC with milliseconds (`2026-11-24T18:02:20.000Z`), as every table stores it. */
export const DateTime = t.String({ format: 'date-time' })

/** An instant that may not exist yet (a next run, an expiry). */
export const NullableDateTime = t.Union([DateTime, t.Null()])
