// Tables of migration 0002_interactions: user settings, context types and the interaction store (issue 3).

export interface InteractionsTables {}
