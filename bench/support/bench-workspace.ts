/**
 * A workspace for a benchmark on the running local stack: Enterprise, rate limits out of the way (a
 * benchmark measures the service, not its limiter), and a full-access API key.
 */
import { createApiKey } from '../../lambdas/accounts/api-keys.js';
import { createWorkspace, type NewWorkspace } from '../../lambdas/accounts/workspaces.js';

const UNLIMITED = 1_000_000_000;

export async function benchWorkspace(
  fields: Pick<NewWorkspace, 'name' | 'included_credits'>,
): Promise<{ workspaceId: string; apiKey: string }> {
  const workspace = await createWorkspace({
    ...fields,
    plan: 'enterprise',
    rate_limits: {
      read: UNLIMITED,
      write: UNLIMITED,
      heavy: UNLIMITED,
      status: UNLIMITED,
      status_ip: UNLIMITED,
    },
  });
  const { secret } = await createApiKey({
    workspace_id: workspace.workspace_id,
    name: 'bench',
    scope_mode: 'full',
  });
  return { workspaceId: workspace.workspace_id, apiKey: secret };
}
