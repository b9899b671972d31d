/** Background removals as the API answers them: the reference's fields, layer links freshly presigned. */
import { presignMediaDownload } from '../media/media-store.js';
import type { BackgroundRemovalLayer, BackgroundRemovalRecord } from './background-removal-records.js';

/** Each layer made, to a presigned download URL; empty until completed. */
export async function presignedLayers(
  record: BackgroundRemovalRecord,
): Promise<Partial<Record<BackgroundRemovalLayer, string>>> {
  const entries = Object.entries(record.outputs ?? {}) as [BackgroundRemovalLayer, string][];
  return Object.fromEntries(
    await Promise.all(entries.map(async ([layer, key]) => [layer, await presignMediaDownload(key)] as const)),
  );
}

export async function backgroundRemovalView(record: BackgroundRemovalRecord) {
  return {
    id: record.background_removal_id,
    title: record.title,
    status: record.status,
    requested_layers: record.layers,
    layers: await presignedLayers(record),
    progress: record.progress,
    duration: record.duration,
    error: record.failure_message,
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    request_id: record.request_id,
    created_at: record.created_at,
    completed_at: record.completed_at,
  };
}
