import type { ChildDefinition, ChildRuns } from '../../queue/child-runs';

/** How a step names the definition of the child runs it starts. */
export interface ChildRef {
  definitionId?: string;
  definitionName?: string;
  version?: string;
}

/**
 * The definition a child of run `runId` would run, and the child's depth; or why it cannot start
 * (no such definition, a cycle through the run's lineage, past WORKFLOW_MAX_DEPTH). Shared by the
 * `workflow` step and `map` steps whose sub-step is a workflow.
 */
export async function resolveChild(
  children: ChildRuns,
  workspaceId: string,
  runId: string,
  ref: ChildRef,
  maxDepth: number,
): Promise<{ definition: ChildDefinition; depth: number } | { error: string }> {
  const definition = await children.definition(workspaceId, {
    id: ref.definitionId,
    name: ref.definitionName,
    version: ref.version,
  });
  const target = ref.definitionId
    ? `definition ${ref.definitionId}`
    : `definition "${ref.definitionName}" version "${ref.version}"`;
  if (!definition) return { error: `${target} does not exist in this workspace` };
  const lineage = await children.lineage(runId);
  if (lineage.some((run) => run.definitionId === definition.id)) {
    return { error: `${target} would recurse: it is already running in this run's lineage` };
  }
  const depth = (lineage[0]?.depth ?? 0) + 1;
  if (depth > maxDepth) {
    return {
      error: `child run would be nested ${depth} deep, past the limit of ${maxDepth} (WORKFLOW_MAX_DEPTH)`,
    };
  }
  return { definition, depth };
}
