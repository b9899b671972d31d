/**
 * Deleting a video removes its record, its outputs and the media its request brought in (URL
 * downloads and inline files; assets it used stay). A video deleted before it finished gets its
 * reserved credits back and counts as failed in its batch, so the batch still closes; its workflow
 * finds no record at its next step and stops, removing anything it had already written.
 */
import { recordBatchItemOutcome } from '../batches/batches.js';
import { BILLING_STATE, refundReservation } from '../billing/credits.js';
import { deleteExistingItem } from '../core/repository.js';
import { mediaKeys } from '../media/media-keys.js';
import { deleteMediaObject, listMediaKeys } from '../media/media-store.js';
import { brandKitKeys } from './brand-kit-render.js';
import {
  getVideo,
  hasReservation,
  isTerminal,
  type VideoRecord,
  videoKey,
  videoMediaKeys,
} from './videos.js';

/** Objects the request stored for this video (not assets: those belong to the workspace). */
function requestInputKeys(video: VideoRecord): string[] {
  const inputsPrefix = mediaKeys.input(video.workspace_id, '');
  const keys = [
    ...video.render.scenes.flatMap((scene) => [
      scene.background.type === 'color' ? undefined : scene.background.key,
      scene.presenter?.kind === 'image' ? scene.presenter.key : undefined,
      scene.speech?.kind === 'audio' ? scene.speech.key : undefined,
    ]),
    video.render.watermark?.key,
    ...brandKitKeys(video.render),
    ...(video.render.cinematic?.reference_keys ?? []),
  ];
  return keys.filter((key): key is string => key?.startsWith(inputsPrefix) === true);
}

/** Attempts when a batch worker reserves credits for the video while it is being deleted. */
const DELETE_ATTEMPTS = 3;

/** @returns false when there is no such video */
export async function deleteVideo(workspaceId: string, videoId: string): Promise<boolean> {
  const key = videoKey(workspaceId, videoId);
  for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
    const video = await getVideo(workspaceId, videoId, true);
    if (!video) return false;
    if (hasReservation(video)) await refundReservation(key, workspaceId, video);
    // The record goes first (a crash leaves unreferenced objects at worst, never a video without
    // media), and only while no reservation is held: one made meanwhile is refunded on the next pass.
    if (!(await deleteExistingItem(key, { billing_state: BILLING_STATE.reserved }))) continue;
    if (video.batch_id && !isTerminal(video)) {
      await recordBatchItemOutcome(workspaceId, video.batch_id, videoId, 'failed');
    }
    const objects = [...requestInputKeys(video), ...(await listMediaKeys(videoMediaKeys.prefix(video)))];
    await Promise.all(objects.map((objectKey) => deleteMediaObject(objectKey)));
    return true;
  }
  throw new Error(`Video ${videoId} kept being admitted while it was deleted`);
}
