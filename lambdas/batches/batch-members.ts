/**
 * The members of a batch, for every job family that has batches (asset uploads, videos): items are
 * indexed under their batch in item order (GSI1, `batchItemsPartition`), so one family description
 * gives the batch's pages, all its members, its view with counts by status, and the bulk statuses.
 */
import { type ItemKey, queryPage } from '../core/repository.js';
import { type BatchKind, type BatchRecord, batchItemsPartition, batchNotFound, getBatch } from './batches.js';
import { BULK_STATUS, type BulkStatusEntry, bulkStatuses } from './bulk-status.js';

export interface BatchFamily<Job, Item> {
  kind: BatchKind;
  /** Names the family's member pages in their tokens, so a token of one listing is refused by another. */
  listName: string;
  /** The job of the workspace with this id, if any. */
  get(workspaceId: string, id: string): Promise<Job | undefined>;
  toRecord(item: Item): Job;
  entry(job: Job): BulkStatusEntry;
  /**
   * How a batch view splits the items not yet counted (the batch's counters know only terminal
   * ones): `members` reads every member, for families whose items may be queued or processing;
   * `queued` counts them all queued without reading them, for families whose items only wait.
   */
  uncounted: 'members' | 'queued';
}

/** Members read per query when all of them are needed. */
const MEMBER_QUERY_LIMIT = 100;

/** The members of a batch, in item order, one page at a time. */
export async function batchMemberPage<Job, Item extends ItemKey>(
  family: BatchFamily<Job, Item>,
  workspaceId: string,
  batchId: string,
  limit: number,
  token?: string,
): Promise<{ items: Job[]; nextToken: string | null }> {
  const page = await queryPage<Item>({
    partition: batchItemsPartition(workspaceId, batchId),
    index: 'gsi1',
    limit,
    token,
    binding: `${workspaceId}:${family.listName}:${batchId}`,
    newestFirst: false,
  });
  return { items: page.items.map((item) => family.toRecord(item)), nextToken: page.nextToken };
}

export async function allBatchMembers<Job, Item extends ItemKey>(
  family: BatchFamily<Job, Item>,
  workspaceId: string,
  batchId: string,
): Promise<Job[]> {
  const members: Job[] = [];
  let token: string | undefined;
  do {
    const page = await batchMemberPage(family, workspaceId, batchId, MEMBER_QUERY_LIMIT, token);
    members.push(...page.items);
    token = page.nextToken ?? undefined;
  } while (token);
  return members;
}

/** The batch of this family with this id. @throws NotFoundError `batch_not_found` */
export async function requireBatch<Job, Item>(
  family: BatchFamily<Job, Item>,
  workspaceId: string,
  batchId: string,
): Promise<BatchRecord> {
  const batch = await getBatch(workspaceId, batchId);
  if (!batch || batch.kind !== family.kind) throw batchNotFound(batchId);
  return batch;
}

async function countsByStatus<Job, Item extends ItemKey>(family: BatchFamily<Job, Item>, batch: BatchRecord) {
  // Terminal counts come from the batch's own counters: one read however large the batch.
  const counts = { queued: 0, processing: 0, completed: batch.succeeded, failed: batch.failed };
  if (family.uncounted === 'queued') {
    counts.queued = batch.total_items - batch.succeeded - batch.failed;
  } else if (batch.status === 'processing') {
    for (const member of await allBatchMembers(family, batch.workspace_id, batch.batch_id)) {
      const { status } = family.entry(member);
      if (status === BULK_STATUS.processing) counts.processing += 1;
    }
    // Queued: every item neither counted nor processing, including items not written yet (a family
    // whose items are written when the batch worker admits them).
    counts.queued = batch.total_items - batch.succeeded - batch.failed - counts.processing;
  }
  return counts;
}

/** `GET /v3/<family>/batches/{batch_id}`: the batch, its counts by status and one page of its members. */
export async function batchView<Job, Item extends ItemKey>(
  family: BatchFamily<Job, Item>,
  workspaceId: string,
  batchId: string,
  limit: number,
  token?: string,
) {
  const batch = await requireBatch(family, workspaceId, batchId);
  const page = await batchMemberPage(family, workspaceId, batchId, limit, token);
  return {
    batch_id: batch.batch_id,
    title: batch.title,
    status: batch.status,
    total_items: batch.total_items,
    counts_by_status: await countsByStatus(family, batch),
    created_at: batch.created_at,
    completed_at: batch.completed_at,
    items: page.items.map((job) => {
      const { batch_id: _batchId, ...entry } = family.entry(job);
      return entry;
    }),
    has_more: page.nextToken !== null,
    next_token: page.nextToken,
  };
}

/** `GET /v3/<family>/statuses`: the jobs named, then every member of each batch of this family named. */
export function batchStatuses<Job, Item extends ItemKey>(
  family: BatchFamily<Job, Item>,
  workspaceId: string,
  ids: readonly string[],
  batchIds: readonly string[],
): Promise<BulkStatusEntry[]> {
  return bulkStatuses(
    {
      get: (id) => family.get(workspaceId, id),
      members: async (batchId) => {
        const batch = await getBatch(workspaceId, batchId);
        return batch?.kind === family.kind ? allBatchMembers(family, workspaceId, batchId) : undefined;
      },
      entry: (job) => family.entry(job),
    },
    ids,
    batchIds,
  );
}
