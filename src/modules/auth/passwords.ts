// Password hashing with argon2id through Bun.password (docs/api.md "Sign-in, tokens and roles").

export const MIN_PASSWORD_LENGTH = 12

/** argon2id's work factors: memory in KiB and passes. */
export interface PasswordCost {
  readonly memoryCost: number
  readonly timeCost: number
}

/**
 * What every server uses: 64 MiB and 2 passes (Bun's default, above OWASP's argon2id minimum of 19 MiB × 2), about
 * 150–200 ms a hash here. Only a test harness passes another cost, through createServer's overrides; a hash records
 * its own cost, so verifying never depends on it.
 */
export const PASSWORD_COST: PasswordCost = Object.freeze({ memoryCost: 65_536, timeCost: 2 })

export class Passwords {
  #decoy: Promise<string> | undefined

  constructor(readonly cost: PasswordCost = PASSWORD_COST) {}

  hash(password: string): Promise<string> {
    return Bun.password.hash(password, { algorithm: 'argon2id', ...this.cost })
  }

  verify(password: string, hash: string): Promise<boolean> {
    return Bun.password.verify(password, hash)
  }

  /**
   * A hash to verify against when the e-mail is unknown, so that "no such user" costs the same time as
   * "wrong password" and the two cannot be told apart by timing.
   */
  decoy(): Promise<string> {
    return (this.#decoy ??= this.hash('decoy password that matches nothing'))
  }
}
