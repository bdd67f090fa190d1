// Loaded before every test file (bunfig.toml): hooks here run once for the whole process.
import { afterAll } from 'bun:test'
import { removeAll } from './helpers/remove-at-end.ts'

afterAll(removeAll)
