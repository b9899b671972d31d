import { serviceFunctionGrants } from './lib/access/function-access.js';
import { grantsPolicy } from './lib/access/grant-policies.js';
import { sdkCommandsOf, type FunctionEntry } from './lib/access/bundle-calls.js';
import { requiredActions } from './lib/access/sdk-calls.js';
import { matchesWildcard } from './lib/access/policy-evaluation.js';
import { areaBundleEntry } from './lib/stack/route-plan.js';
import { TASK_FUNCTIONS } from './lambdas/workflows/task-functions.js';
const root = process.cwd();
const res = { partition: 'aws', region: 'r', urlSuffix: 'x', tableArn: 't', stackKeyArn: 'k', cursorKeyArn: 'c', mediaBucketArn: 'b', eventBusArn: 'e', batchQueueArn: 'q', webhookQueueArn: 'w', webhookDeadLetterQueueArn: 'd', jobWorkflowArns: ['s'], speechEngine: 'polly' as const };
const single: Record<string, string> = { authorizer: 'api/authorizer', batchWorker: 'workers/batch-items', webhookDispatcher: 'workers/webhook-dispatcher', catalogPublisher: 'catalog/publish-catalog-handler' };
const t0 = Date.now();
for (const [name, grants] of serviceFunctionGrants()) {
  let entry: FunctionEntry;
  if (name.startsWith('area:')) entry = { generatedSource: areaBundleEntry(root, name.slice(5) as never), resolveDirectory: root };
  else if (name.startsWith('task:')) { const d = TASK_FUNCTIONS[name.slice(5)]!; entry = { module: d.module, exportName: d.exportName ?? 'handler' }; }
  else entry = { module: single[name]!, exportName: 'handler' };
  const actions = grantsPolicy(grants, res).flatMap((s) => s.actions);
  const cmds = sdkCommandsOf(root, entry);
  const gaps = cmds.flatMap((c) => requiredActions(c.service, c.operation).filter((any) => !any.some((a) => actions.some((p) => matchesWildcard(p, a, true)))).map((any) => any.join('|')));
  console.log(name, cmds.length, gaps.length ? '→ ' + [...new Set(gaps)].join(', ') : '');
}
console.log(Date.now() - t0, 'ms');
