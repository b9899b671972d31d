/**
 * The records of a media job type (lipsyncs, video translations, filler-word removals, background
 * removals, AI clipping; docs/architecture.md, "Jobs"): one table item per job under its workspace's
 * partition, keyed by the type's resource type and the job's id. One implementation of what every
 * such type does with its records, so a new job type declares its statuses and what its jobs store,
 * and writes none of this again:
 * - reads (`get`, `require`) and lists (`listJobRecords`, newest first);
 * - writes by the job's run only while it runs (`updateRunning`, `complete`, `fail`): each is
 *   conditional on a running status, so a record that ended or was deleted meanwhile is left alone,
 *   and the run learns so from the undefined it gets back;
 * - deletes (`remove`), in one of two ways:
 *   - hard (the item goes): credits still reserved are refunded first, and the item is deleted only
 *     if no reservation was written meanwhile (a job being admitted while it is deleted), so nothing
 *     stays reserved for a job nobody can see;
 *   - soft (`statuses.deleted`): the status is written first, on the condition that it is still the
 *     one read, so a run that ends meanwhile finds its job gone; a job deleted before it ended is
 *     refunded, one that had ended keeps its charge. The record stays (for a dedup key that still
 *     names it, or for the account's history); `deletedReadable` says whether readers still see it.
 *   Either way a batch item deleted before it ended counts as failed in its batch, and the type's
 *   `discard` removes what the job stored.
 */
import { batchItemSortKey, batchItemsPartition, recordBatchItemOutcome } from '../batches/batches.js';
import { BILLING_STATE, type JobBilling, refundReservation } from '../billing/credits.js';
import type { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, nowSeconds } from '../core/ids.js';
import {
  deleteExistingItem,
  getItem,
  queryPage,
  type StoredItem,
  updateExistingItem,
} from '../core/repository.js';
import { keys, type ResourceType } from '../core/table-schema.js';
import { mediaKeys } from '../media/media-keys.js';
import { deleteMediaObject, listMediaKeys } from '../media/media-store.js';

/** The fields every media job record has. */
export interface MediaJobRecord extends JobBilling {
  workspace_id: string;
  status: string;
  /** 0 to 100. */
  progress: number;
  failure_code: string | null;
  failure_message: string | null;
  completed_at: number | null;
  /** A batch member's batch and place in it (lipsyncs, video translations). */
  batch_id?: string | null;
  item_index?: number | null;
  /** When a soft-deleted record was deleted. */
  deleted_at?: number | null;
}

type ItemOf<Rec> = Rec & { pk: string; sk: string };

export interface JobRecordsSpec<Rec extends MediaJobRecord, IdField extends keyof Rec & string> {
  resourceType: ResourceType;
  /** The record's id field, e.g. `lipsync_id`. */
  idField: IdField;
  /** The list's name in its pagination tokens (a token of one list is refused by another). */
  listName: string;
  /** The 404 of an id that names no (visible) job of the workspace. */
  notFound(id: string): NotFoundError;
  statuses: {
    /** Accepted, not started. */
    pending: Rec['status'];
    /** Started: the status the run writes first. */
    running: Rec['status'];
    completed: Rec['status'];
    failed: Rec['status'];
    /** Present for a soft delete: the status a deleted record keeps. */
    deleted?: Rec['status'];
  };
  /** Soft delete only: whether a deleted record is still read (`GET` shows it deleted). @default false */
  deletedReadable?: boolean;
  /** Fields a soft delete writes besides the status (e.g. outputs no longer there). */
  deletedFields?: Partial<Rec>;
  /** Which records of the type a list shows, besides not deleted ones. @default every record */
  listed?(record: Rec): boolean;
  /**
   * After a delete: removes what the job stored (its outputs, the media its request stored). Every
   * type with a delete route has one; a type without (filler-word removals) has none.
   */
  discard?(record: Rec): Promise<void>;
}

export interface JobRecords<Rec extends MediaJobRecord, IdField extends keyof Rec & string> {
  key(workspaceId: string, id: string): { pk: string; sk: string };
  /** The table item of a record (before its reservation is written, without the billing fields). */
  item(record: Omit<Rec, keyof JobBilling>): StoredItem;
  toRecord(item: ItemOf<Rec>): Rec;
  /** A job of the workspace; a soft-deleted one only if `deletedReadable`. */
  get(workspaceId: string, id: string, consistent?: boolean): Promise<Rec | undefined>;
  /** As `get`, else the type's 404 (or the one given: a family that names its ids otherwise). */
  require(workspaceId: string, id: string, notFound?: (id: string) => NotFoundError): Promise<Rec>;
  /** What the type declared (`listJobRecords` reads it). */
  readonly spec: JobRecordsSpec<Rec, IdField>;
  /** Whether the record is soft-deleted. */
  isDeleted(record: Pick<Rec, 'status'>): boolean;
  /** Sets fields of a job still running (not ended, not deleted); the record after, else undefined. */
  updateRunning(ids: Pick<Rec, 'workspace_id' | IdField>, fields: Partial<Rec>): Promise<Rec | undefined>;
  complete(record: Pick<Rec, 'workspace_id' | IdField>, fields: Partial<Rec>): Promise<Rec | undefined>;
  fail(
    record: Pick<Rec, 'workspace_id' | IdField>,
    failure: { code: string; message: string },
  ): Promise<Rec | undefined>;
  isEnded(record: Pick<Rec, 'status'>): boolean;
  /**
   * Sets the title of a (visible) job of the workspace, whatever its status. `accepts` and `notFound`
   * as for `remove`.
   */
  rename(
    workspaceId: string,
    id: string,
    title: string,
    options?: { accepts?(record: Rec): boolean; notFound?(id: string): NotFoundError },
  ): Promise<Rec>;
  /**
   * Deletes a job of the workspace (see the module's comment). `accepts` narrows which records the
   * caller's route may delete (others are not found); `notFound` replaces the type's 404.
   */
  remove(
    workspaceId: string,
    id: string,
    options?: { accepts?(record: Rec): boolean; notFound?(id: string): NotFoundError },
  ): Promise<void>;
}

/**
 * Attempts at a delete that keeps meeting a concurrent write (a job being admitted, or changing
 * status, while it is deleted). Each lost race means the job moved on, so a few are plenty.
 */
const DELETE_ATTEMPTS = 5;

export function jobRecords<Rec extends MediaJobRecord, IdField extends keyof Rec & string>(
  spec: JobRecordsSpec<Rec, IdField>,
): JobRecords<Rec, IdField> {
  const { statuses } = spec;
  const key = (workspaceId: string, id: string) => keys.resource(workspaceId, spec.resourceType, id);
  const idOf = (record: Pick<Rec, IdField>) => record[spec.idField] as string;
  const isDeleted = (record: Pick<Rec, 'status'>) =>
    statuses.deleted !== undefined && record.status === statuses.deleted;
  const isEnded = (record: Pick<Rec, 'status'>) =>
    record.status === statuses.completed || record.status === statuses.failed;

  const toRecord = (item: ItemOf<Rec>): Rec => {
    const { pk: _pk, sk: _sk, ...record } = item;
    return record as unknown as Rec;
  };

  /** The stored record, deleted or not. */
  async function stored(workspaceId: string, id: string, consistent: boolean): Promise<Rec | undefined> {
    if (!ID_PATTERN.test(id)) return undefined;
    const item = await getItem<ItemOf<Rec>>(key(workspaceId, id), consistent);
    return item ? toRecord(item) : undefined;
  }

  async function get(workspaceId: string, id: string, consistent = false): Promise<Rec | undefined> {
    const record = await stored(workspaceId, id, consistent);
    return record && isDeleted(record) && !spec.deletedReadable ? undefined : record;
  }

  async function updateRunning(
    ids: Pick<Rec, 'workspace_id' | IdField>,
    fields: Partial<Rec>,
  ): Promise<Rec | undefined> {
    for (const status of [statuses.running, statuses.pending]) {
      const item = await updateExistingItem<ItemOf<Rec>>(key(ids.workspace_id, idOf(ids)), fields, [], {
        status,
      });
      if (item) return toRecord(item);
    }
    return undefined;
  }

  /** The record as `remove` may delete it, else the 404. */
  async function deletable(
    workspaceId: string,
    id: string,
    accepts: (record: Rec) => boolean,
    notFound: (id: string) => NotFoundError,
  ): Promise<Rec> {
    const record = await stored(workspaceId, id, true);
    if (!record || !accepts(record) || (isDeleted(record) && !spec.deletedReadable)) throw notFound(id);
    return record;
  }

  /** Gone from the table; true when this call deleted it. */
  async function removeItem(workspaceId: string, record: Rec): Promise<boolean> {
    const recordKey = key(workspaceId, idOf(record));
    if (record.billing_state === BILLING_STATE.reserved)
      await refundReservation(recordKey, workspaceId, record);
    return deleteExistingItem(recordKey, { billing_state: BILLING_STATE.reserved });
  }

  /** Marked deleted; true when this call marked it. */
  async function markDeleted(workspaceId: string, record: Rec, deleted: Rec['status']): Promise<boolean> {
    const recordKey = key(workspaceId, idOf(record));
    const marked = await updateExistingItem(
      recordKey,
      { ...spec.deletedFields, status: deleted, deleted_at: nowSeconds() },
      [],
      { status: record.status },
    );
    if (!marked) return false;
    if (!isEnded(record) && record.billing_state === BILLING_STATE.reserved)
      await refundReservation(recordKey, workspaceId, record);
    return true;
  }

  return {
    spec,
    isDeleted,
    key,
    item(record) {
      return {
        ...key(record.workspace_id, idOf(record as Rec)),
        // A batch's items are indexed under it in item order (batches/batch-members.ts).
        ...(record.batch_id && typeof record.item_index === 'number'
          ? {
              gsi1pk: batchItemsPartition(record.workspace_id, record.batch_id),
              gsi1sk: batchItemSortKey(record.item_index),
            }
          : {}),
        ...record,
      };
    },
    toRecord,
    get,
    async require(workspaceId, id, notFound = spec.notFound) {
      const record = await get(workspaceId, id);
      if (!record) throw notFound(id);
      return record;
    },
    updateRunning,
    complete: (record, fields) =>
      updateRunning(record, {
        ...fields,
        status: statuses.completed,
        progress: 100,
        completed_at: nowSeconds(),
      } as Partial<Rec>),
    fail: (record, failure) =>
      updateRunning(record, {
        status: statuses.failed,
        failure_code: failure.code,
        failure_message: failure.message,
        completed_at: nowSeconds(),
      } as Partial<Rec>),
    isEnded,
    async rename(workspaceId, id, title, options = {}) {
      const record = await get(workspaceId, id, true);
      const notFound = options.notFound ?? spec.notFound;
      if (!record || !(options.accepts?.(record) ?? true)) throw notFound(id);
      // Conditional on the status read, so a record deleted meanwhile is not written back.
      const item = await updateExistingItem<ItemOf<Rec>>(key(workspaceId, id), { title }, [], {
        status: record.status,
      });
      if (!item) throw notFound(id);
      return toRecord(item);
    },
    async remove(workspaceId, id, options = {}) {
      const accepts = options.accepts ?? (() => true);
      const notFound = options.notFound ?? spec.notFound;
      for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
        const record = await deletable(workspaceId, id, accepts, notFound);
        if (isDeleted(record)) return; // deleted before, and still read: nothing more to do
        const done =
          statuses.deleted === undefined
            ? await removeItem(workspaceId, record)
            : await markDeleted(workspaceId, record, statuses.deleted);
        if (!done) continue;
        if (record.batch_id && !isEnded(record))
          await recordBatchItemOutcome(workspaceId, record.batch_id, id, 'failed');
        await spec.discard?.(record);
        return;
      }
      throw new Error(`${spec.resourceType} ${id} kept changing while it was deleted`);
    },
  };
}

/**
 * A type's jobs of the workspace, newest first, deleted ones left out. A function of its own, not a
 * method of `jobRecords`: only the list routes call it, so only their bundles hold the paging (and
 * its signed cursors' KMS key) — a job's steps, which read and write their records, do not.
 */
export async function listJobRecords<Rec extends MediaJobRecord, IdField extends keyof Rec & string>(
  records: JobRecords<Rec, IdField>,
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
  listName = records.spec.listName,
): Promise<{ items: Rec[]; nextToken: string | null }> {
  const result = await queryPage<ItemOf<Rec>>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${records.spec.resourceType}#`,
    limit: page.limit,
    token: page.token,
    binding: `${workspaceId}:${listName}`,
    keep: (item) => {
      const record = item as unknown as Rec;
      return !records.isDeleted(record) && (records.spec.listed?.(record) ?? true);
    },
  });
  return { items: result.items.map(records.toRecord), nextToken: result.nextToken };
}

/**
 * What a deleted job stored, removed (the usual `discard`): the objects its request stored among
 * `requestObjects` (only those in the workspace's inputs: the assets and videos it used stay) and
 * everything in the job's own `folder` (its work files and outputs).
 */
export async function discardJobMedia(
  workspaceId: string,
  requestObjects: readonly (string | null)[],
  folder: string,
): Promise<void> {
  const inputs = mediaKeys.input(workspaceId, '');
  const objects = [
    ...requestObjects.filter((key): key is string => key?.startsWith(inputs) === true),
    ...(await listMediaKeys(folder)),
  ];
  await Promise.all(objects.map((key) => deleteMediaObject(key)));
}
