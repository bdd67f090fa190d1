// A sample agent of the built-in catalog, written as source so it is compiled into the binary: nothing is fetched.

export interface CatalogAgent {
  /** The catalog entry's id (`builtin-<name>`). */
  readonly id: string
  /** The agent's name in its bundle, and the name an install takes unless told otherwise. */
  readonly name: string
  readonly title: string
  readonly description: string
  readonly instructions: string
  /** SKILL.md contents; each is filed under its frontmatter name. */
  readonly skills: readonly string[]
  readonly workflows: readonly { id: string; name: string; definition: unknown }[]
  /** The one application the agent uses (all its operations), as an OpenAPI document. */
  readonly application: { readonly api_name: string; readonly document: unknown }
}
