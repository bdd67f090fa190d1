// Schema pieces several modules share, so one rule reads the same everywhere.
import { t } from 'elysia'

/** A pattern with one meaning: "has a character that is not white space"; validation.ts words its error as such. */
export const NOT_BLANK = '\\S'

/** A name people read in lists (tasks, tokens, users, workflows): 1 to `maxLength` characters, not only spaces. */
export const DisplayName = (maxLength: number) => t.String({ minLength: 1, maxLength, pattern: NOT_BLANK })
