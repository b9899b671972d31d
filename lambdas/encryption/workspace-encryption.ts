/**
 * Setting, showing and clearing a workspace's customer-managed key (what the admin CLI's
 * `encryption` commands do). Setting records `pending` first and then starts the setup workflow,
 * so no media write can slip through with the old key once `set` has answered; the workflow
 * records `active` or `failed`.
 *
 * Clearing removes the customer key from the workspace: new media is written with the stack's key
 * again. Objects already written stay encrypted with the customer key (S3 does not re-encrypt them)
 * and are readable only while that key stays enabled and usable by this service; disabling or
 * deleting the key afterwards makes them unreadable for good. The same holds for the previous key
 * when another key is set.
 */
import { DescribeExecutionCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import {
  ENCRYPTION_STATES,
  getWorkspace,
  putWorkspaceEncryption,
  removeWorkspaceEncryption,
  type WorkspaceEncryption,
} from '../accounts/workspaces.js';
import { sfnClient } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import type { ErrorDetail } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { parseCustomerKeyArn } from './key-arn.js';
import { concludePendingSetup, setupInput } from './setup-steps.js';

/** What `encryption show` reports; `none` = the stack's key. */
export interface EncryptionView {
  workspace_id: string;
  state: 'none' | WorkspaceEncryption['state'];
  key_arn: string | null;
  setup_id?: string;
  execution_arn?: string;
  report?: ErrorDetail[];
  requested_at?: number;
  updated_at?: number;
  activated_at?: number;
}

/** A pending setup whose execution cannot be found yet may still be starting: wait this long. */
const START_GRACE_SECONDS = 60;

export class WorkspaceNotFoundError extends Error {
  constructor(workspaceId: string) {
    super(`No workspace ${workspaceId}.`);
    this.name = 'WorkspaceNotFoundError';
  }
}

function setupStateMachineArn(): string {
  const arn = config().encryptionSetupStateMachineArn;
  if (!arn) {
    throw new Error(
      'ENCRYPTION_SETUP_STATE_MACHINE_ARN is not set: use the stack output EncryptionSetupStateMachineArn.',
    );
  }
  return arn;
}

/** `arn:…:stateMachine:<machine>` + name → `arn:…:execution:<machine>:<name>`. */
function executionArnOf(stateMachineArn: string, name: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
}

function viewOf(workspaceId: string, encryption: WorkspaceEncryption | undefined): EncryptionView {
  if (!encryption) return { workspace_id: workspaceId, state: 'none', key_arn: null };
  return { workspace_id: workspaceId, ...encryption };
}

/**
 * Validates the key ARN and records the workspace's setup as `pending` (media writes now get 409
 * `encryption_setup_pending`). Replaces any earlier key or setup: a setup still running for an
 * earlier key can no longer record its outcome.
 * @throws InvalidEncryptionKeyError for a key reference that is not a full key ARN of this region
 */
export async function beginEncryptionSetup(
  workspaceId: string,
  keyArn: string,
): Promise<WorkspaceEncryption> {
  const key = parseCustomerKeyArn(keyArn, config().region);
  const stateMachineArn = setupStateMachineArn();
  const setupId = newId();
  const now = nowSeconds();
  const encryption: WorkspaceEncryption = {
    state: ENCRYPTION_STATES.pending,
    key_arn: key.arn,
    setup_id: setupId,
    execution_arn: executionArnOf(stateMachineArn, `${workspaceId}-${setupId}`),
    report: [],
    requested_at: now,
    updated_at: now,
  };
  if (!(await putWorkspaceEncryption(workspaceId, encryption))) throw new WorkspaceNotFoundError(workspaceId);
  return encryption;
}

/** Starts the setup workflow of a setup `beginEncryptionSetup` recorded; records `failed` if it cannot. */
export async function startEncryptionSetup(
  workspaceId: string,
  encryption: WorkspaceEncryption,
): Promise<void> {
  try {
    await sfnClient().send(
      new StartExecutionCommand({
        stateMachineArn: setupStateMachineArn(),
        name: encryption.execution_arn.split(':').at(-1),
        input: JSON.stringify(setupInput(workspaceId, encryption)),
      }),
    );
  } catch (error) {
    await concludePendingSetup(workspaceId, encryption.setup_id, {
      state: ENCRYPTION_STATES.failed,
      report: [
        {
          code: 'setup_not_started',
          message: 'The setup workflow could not be started; set the key again.',
          path: 'StartExecution',
        },
      ],
      updated_at: nowSeconds(),
    });
    throw error;
  }
}

/** `encryption set`: validate, record `pending`, start the setup workflow. */
export async function requestEncryptionSetup(workspaceId: string, keyArn: string): Promise<EncryptionView> {
  const encryption = await beginEncryptionSetup(workspaceId, keyArn);
  await startEncryptionSetup(workspaceId, encryption);
  return viewOf(workspaceId, encryption);
}

/**
 * `encryption show`. A setup left `pending` by a workflow that ended without recording an outcome
 * (stopped, timed out, or its failure recorder failed; the local stack failing executions it could
 * not resume after a restart) is recorded as `failed` here, so no workspace stays pending forever.
 */
export async function describeWorkspaceEncryption(workspaceId: string): Promise<EncryptionView> {
  const workspace = await getWorkspace(workspaceId, true);
  if (!workspace) throw new WorkspaceNotFoundError(workspaceId);
  const encryption = workspace.encryption;
  if (encryption?.state !== ENCRYPTION_STATES.pending) return viewOf(workspaceId, encryption);
  const ended = await endedWithoutOutcome(encryption);
  if (!ended) return viewOf(workspaceId, encryption);
  await concludePendingSetup(workspaceId, encryption.setup_id, {
    state: ENCRYPTION_STATES.failed,
    report: [{ code: 'setup_interrupted', message: ended, path: 'Workflow' }],
    updated_at: nowSeconds(),
  });
  return viewOf(workspaceId, (await getWorkspace(workspaceId, true))?.encryption);
}

/** Why the setup's execution ended without an outcome, or undefined while it may still record one. */
async function endedWithoutOutcome(encryption: WorkspaceEncryption): Promise<string | undefined> {
  try {
    const execution = await sfnClient().send(
      new DescribeExecutionCommand({ executionArn: encryption.execution_arn }),
    );
    // SUCCEEDED: the workflow recorded its outcome (or was superseded); the caller re-reads.
    if (execution.status === 'RUNNING' || execution.status === 'SUCCEEDED') return undefined;
    return `The setup workflow ended (${execution.status}${execution.error ? `: ${execution.error}` : ''}) before it recorded an outcome; set the key again.`;
  } catch (error) {
    const missing = (error as { name?: string }).name === 'ExecutionDoesNotExist';
    if (missing && nowSeconds() - encryption.requested_at > START_GRACE_SECONDS) {
      return 'The setup workflow was never started; set the key again.';
    }
    return undefined;
  }
}

/** `encryption clear`: back to the stack's key for new media (see the module comment for old media). */
export async function clearWorkspaceEncryption(
  workspaceId: string,
): Promise<{ workspace_id: string; state: 'none'; cleared: EncryptionView }> {
  const workspace = await getWorkspace(workspaceId, true);
  if (!workspace) throw new WorkspaceNotFoundError(workspaceId);
  if (workspace.encryption) await removeWorkspaceEncryption(workspaceId);
  return { workspace_id: workspaceId, state: 'none', cleared: viewOf(workspaceId, workspace.encryption) };
}
