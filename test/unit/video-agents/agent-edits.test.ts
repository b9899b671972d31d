/** Edit plans: checked against the session's drafts; applied, they touch only the scenes they name. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../support/property-seed.js';
import { ConflictError, InvalidParameterError } from '../../../lambdas/core/errors.js';
import {
  applyEditPlan,
  checkEditPlan,
  type EditPlanItem,
} from '../../../lambdas/video-agents/agent-edits.js';
import type { RenderScene } from '../../../lambdas/videos/render-spec.js';

const scene = (index: number): RenderScene => ({
  id: `scene_${index + 1}`,
  source: 'image_scene',
  background: { type: 'image', key: `cards/${index}.png`, fit: 'cover' },
  presenter: null,
  speech: {
    kind: 'script',
    text: `Scene ${index + 1} says this.`,
    voice_id: 'en-us-olivia',
    settings: { speed: 1, pitch: 0, volume: 1 },
  },
  duration_ms: null,
});

const item = (fields: Partial<EditPlanItem> = {}): EditPlanItem => ({
  scene_id: 'scene_1',
  text: 'New words.',
  scene_snapshot_video_id: 'draft-2',
  edit_version: '1',
  ...fields,
});

const snapshot = { drafts: ['draft-1', 'draft-2'], sceneIds: () => ['scene_1', 'scene_2', 'scene_3'] };

describe('checking an edit plan', () => {
  it('accepts scenes of the latest draft at its edit version', () => {
    expect(checkEditPlan([item(), item({ scene_id: 'scene_3' })], snapshot)).toBe('draft-2');
  });

  it.each([
    [[item({ scene_id: 'scene_9' })], 'edit_plan[0].scene_id'],
    [[item(), item({ scene_id: 'scene_1' })], 'edit_plan[1].scene_id'],
    [[item({ scene_snapshot_video_id: 'someone-elses' })], 'edit_plan[0].scene_snapshot_video_id'],
    [[item(), item({ scene_snapshot_video_id: 'draft-1' })], 'edit_plan[1].scene_snapshot_video_id'],
  ])('refuses %j naming %s', (items, param) => {
    try {
      checkEditPlan(items, snapshot);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidParameterError);
      expect((error as InvalidParameterError).param).toBe(param);
    }
  });

  it('answers 409 stale_edit_version for an older draft or another edit version', () => {
    for (const stale of [item({ scene_snapshot_video_id: 'draft-1' }), item({ edit_version: '2' })]) {
      try {
        checkEditPlan([stale], snapshot);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ConflictError);
        expect((error as ConflictError).code).toBe('stale_edit_version');
      }
    }
  });
});

describe('applying an edit plan', () => {
  it('changes only the named scenes; every other scene is the same and reuses the snapshot speech', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 30 })
          .chain((count) =>
            fc.tuple(
              fc.constant(count),
              fc.uniqueArray(fc.integer({ min: 0, max: count - 1 }), { minLength: 1, maxLength: count }),
              fc.string({ minLength: 1, maxLength: 40 }),
            ),
          ),
        ([count, edited, text]) => {
          const scenes = Array.from({ length: count }, (_, index) => scene(index));
          const items = edited.map((index) =>
            item({ scene_id: `scene_${index + 1}`, text: `${text} ${index}` }),
          );
          const result = applyEditPlan('draft-2', scenes, items);
          expect(result.scenes).toHaveLength(count);
          expect(new Set(result.edited)).toEqual(new Set(items.map((entry) => entry.scene_id)));
          for (const [index, after] of result.scenes.entries()) {
            const before = scenes[index] as RenderScene;
            const { speech, ...rest } = after;
            const { speech: beforeSpeech, ...beforeRest } = before;
            expect(rest).toEqual(beforeRest);
            if (speech?.kind !== 'script' || beforeSpeech?.kind !== 'script') throw new Error('script');
            if (edited.includes(index)) {
              expect(speech.text).toBe(`${text} ${index}`);
              expect(speech.reuse).toBeUndefined();
            } else {
              expect(speech.text).toBe(beforeSpeech.text);
              expect(speech.reuse).toEqual({ video_id: 'draft-2', scene_id: before.id });
            }
          }
          expect(result.reused).toHaveLength(count - edited.length);
        },
      ),
    );
  });
});
