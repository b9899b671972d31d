/**
 * Edit plans (`POST /v3/video-agents/{session_id}` with `edit_plan`): new narration for named scenes
 * of a draft (the snapshot), checked against it, then applied: the edited scenes get their new words
 * (spoken again), every other scene is kept as it was and reuses the snapshot's speech. Pure.
 */
import { ConflictError, InvalidParameterError } from '../core/errors.js';
import type { RenderScene } from '../videos/render-spec.js';

/** A video's scenes never change once rendered: the scenes document's `edit_version` is always this. */
export const DRAFT_EDIT_VERSION = '1';
export const MAX_EDIT_PLAN_ITEMS = 50;

export interface EditPlanItem {
  scene_id: string;
  text: string;
  scene_snapshot_video_id: string;
  edit_version: string;
}

export interface EditSnapshot {
  /** The session's drafts, oldest first: a snapshot must be one, and the latest to be current. */
  drafts: readonly string[];
  /** Scene ids of the snapshot; undefined while not read yet (then scenes are not checked). */
  sceneIds(videoId: string): readonly string[] | undefined;
}

/**
 * Checks an edit plan against the session's drafts.
 * @throws InvalidParameterError 400 naming the item's field: a snapshot that is not a draft of the
 *   session, items naming different snapshots, a scene outside the snapshot, a scene named twice
 * @throws ConflictError 409 `stale_edit_version`: the snapshot is no longer the session's latest draft,
 *   or its `edit_version` differs
 */
export function checkEditPlan(items: readonly EditPlanItem[], snapshot: EditSnapshot): string {
  const first = items[0];
  if (!first) throw new InvalidParameterError('edit_plan must hold at least one item.', 'edit_plan');
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    if (!snapshot.drafts.includes(item.scene_snapshot_video_id)) {
      throw new InvalidParameterError(
        `Video ${item.scene_snapshot_video_id} is not a draft of this session; use a video_id from GET /v3/video-agents/{session_id}/videos.`,
        `edit_plan[${index}].scene_snapshot_video_id`,
      );
    }
    if (item.scene_snapshot_video_id !== first.scene_snapshot_video_id) {
      throw new InvalidParameterError(
        'Every item of an edit plan must name the same scene_snapshot_video_id.',
        `edit_plan[${index}].scene_snapshot_video_id`,
      );
    }
  }
  const latest = snapshot.drafts.at(-1);
  for (const [index, item] of items.entries()) {
    if (item.scene_snapshot_video_id !== latest || item.edit_version !== DRAFT_EDIT_VERSION) {
      throw new ConflictError(
        `The snapshot changed since it was read: the session's latest draft is ${latest} (edit_version ${DRAFT_EDIT_VERSION}). Read GET /v3/videos/${latest}/scenes and send the plan again.`,
        'stale_edit_version',
        { param: `edit_plan[${index}].edit_version` },
      );
    }
  }
  const sceneIds = snapshot.sceneIds(first.scene_snapshot_video_id);
  // Scenes are checked once the snapshot's scenes are known (the caller reads the video after this).
  if (sceneIds === undefined) return first.scene_snapshot_video_id;
  for (const [index, item] of items.entries()) {
    if (!sceneIds.includes(item.scene_id)) {
      throw new InvalidParameterError(
        `Scene ${item.scene_id} is not a scene of video ${item.scene_snapshot_video_id} (its scenes: ${sceneIds.join(', ')}).`,
        `edit_plan[${index}].scene_id`,
      );
    }
    if (seen.has(item.scene_id)) {
      throw new InvalidParameterError(
        `Scene ${item.scene_id} is edited twice in one plan.`,
        `edit_plan[${index}].scene_id`,
      );
    }
    seen.add(item.scene_id);
  }
  return first.scene_snapshot_video_id;
}

/**
 * The scenes of the new draft: edited scenes say their new text (spoken again); the others keep
 * everything and reuse the snapshot's speech of the same scene.
 */
export function applyEditPlan(
  snapshotVideoId: string,
  scenes: readonly RenderScene[],
  items: readonly EditPlanItem[],
): { scenes: RenderScene[]; edited: string[]; reused: string[] } {
  const edits = new Map(items.map((item) => [item.scene_id, item.text]));
  const edited: string[] = [];
  const reused: string[] = [];
  const next = scenes.map((scene): RenderScene => {
    if (scene.speech?.kind !== 'script') return scene;
    const text = edits.get(scene.id);
    if (text !== undefined) {
      edited.push(scene.id);
      const { reuse: _reuse, ...speech } = scene.speech;
      return { ...scene, speech: { ...speech, text } };
    }
    reused.push(scene.id);
    return {
      ...scene,
      speech: { ...scene.speech, reuse: { video_id: snapshotVideoId, scene_id: scene.id } },
    };
  });
  return { scenes: next, edited, reused };
}
