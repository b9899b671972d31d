/**
 * First-start seeding of the local stack: a default workspace and a full-access development key. The
 * key is kept in the data directory (mode 0600) so every start can print it; if it was revoked, a new
 * one is made.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createApiKey, findApiKeyBySecret } from '../../lambdas/accounts/api-keys.js';
import { createWorkspace, getWorkspace, WORKSPACE_STATUS } from '../../lambdas/accounts/workspaces.js';

/** The seeded workspace has a fixed id so restarts find it. */
export const DEFAULT_WORKSPACE_ID = '00000000000000000000000000000001';

export interface DevelopmentAccess {
  workspaceId: string;
  apiKey: string;
}

async function readKeyFile(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Seeds (or finds) the default workspace and a usable development key. */
export async function ensureDevelopmentAccess(dataDir: string | undefined): Promise<DevelopmentAccess> {
  const workspace =
    (await getWorkspace(DEFAULT_WORKSPACE_ID)) ??
    (await createWorkspace({
      workspace_id: DEFAULT_WORKSPACE_ID,
      name: 'Local workspace',
      plan: 'pro',
      billing_type: 'subscription',
      included_credits: 10_000,
      owner: {
        username: 'local-developer',
        email: 'developer@localhost.invalid',
        first_name: 'Local',
        last_name: 'Developer',
      },
    }));
  if (workspace.status !== WORKSPACE_STATUS.active) {
    throw new Error(
      `The default workspace ${DEFAULT_WORKSPACE_ID} is ${workspace.status}; reactivate it with the admin CLI.`,
    );
  }
  const keyFile = dataDir ? join(dataDir, 'dev-api-key.txt') : undefined;
  const stored = keyFile ? await readKeyFile(keyFile) : undefined;
  if (stored) {
    const key = await findApiKeyBySecret(stored);
    if (key && key.revoked_at === null && (key.expires_at === null || key.expires_at * 1000 > Date.now())) {
      return { workspaceId: workspace.workspace_id, apiKey: stored };
    }
  }
  const { secret } = await createApiKey({
    workspace_id: workspace.workspace_id,
    name: 'Local development key',
    scope_mode: 'full',
  });
  if (keyFile) await writeFile(keyFile, `${secret}\n`, { mode: 0o600 });
  return { workspaceId: workspace.workspace_id, apiKey: secret };
}
