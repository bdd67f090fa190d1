// Tables of migration 0005_workflows: workflow runs, their steps and approval checkpoints, org settings and the audit log (issue 6).

export interface WorkflowsTables {}
