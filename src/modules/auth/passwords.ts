// Password hashing with argon2id through Bun.password (CONTRACT §3).

export const MIN_PASSWORD_LENGTH = 12

export const hashPassword = (password: string): Promise<string> => Bun.password.hash(password, { algorithm: 'argon2id' })

export const verifyPassword = (password: string, hash: string): Promise<boolean> => Bun.password.verify(password, hash)

let decoy: Promise<string> | undefined

/**
 * A hash to verify against when the e-mail is unknown, so that "no such user" costs the same time as
 * "wrong password" and the two cannot be told apart by timing.
 */
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword('decoy password that matches nothing'))
