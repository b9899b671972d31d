/**
 * The event catalog and its documentation: every type a producer emits is in the catalog with a
 * description of its payload, and docs/webhooks.md documents it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, isEventType } from '../../../lambdas/events/event-types.js';
import { outcomeEventTypes } from '../../../lambdas/jobs/job-definition.js';
import { JOBS } from '../../../lambdas/workflows/jobs.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Types the service emits today. */
const EMITTED = [
  'avatar_video.success',
  'avatar_video.fail',
  'batch.completed',
  'voice_clone.success',
  'voice_clone.fail',
  'audio_voice.success',
  'audio_voice.fail',
  'photo_avatar_train.success',
  'photo_avatar_train.fail',
  'photo_avatar_generation.success',
  'photo_avatar_generation.fail',
  'photo_avatar_look.success',
  'photo_avatar_look.fail',
  'instant_avatar.success',
  'instant_avatar.fail',
  'video_translate.success',
  'video_translate.fail',
  'proofread_creation.success',
  'proofread_creation.fail',
  'filler_word_removal.success',
  'filler_word_removal.fail',
  'hyperframes_video.success',
  'hyperframes_video.fail',
  'background_removal.success',
  'background_removal.fail',
  'lipsync.success',
  'lipsync.fail',
  'overdub.success',
  'overdub.fail',
  'ai_clipping.success',
  'ai_clipping.fail',
  'model_video.success',
  'model_video.fail',
  'model_image.success',
  'model_image.fail',
  'video_agent.success',
  'video_agent.fail',
] as const;

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the event catalog', () => {
  it('lists every type a producer names, and EMITTED is complete', () => {
    const named = new Set<string>();
    for (const file of sources(path.join(ROOT, 'lambdas'))) {
      if (file.includes(`${path.sep}webhooks${path.sep}`)) continue;
      for (const match of readFileSync(file, 'utf8').matchAll(
        /event_type: ['`]([a-z_]+\.)(\w+|\$\{\w+\})['`]/g,
      )) {
        const [, family = '', outcome = ''] = match;
        for (const type of outcome.startsWith('${')
          ? [`${family}success`, `${family}fail`]
          : [family + outcome]) {
          named.add(type);
        }
      }
    }
    // Job types name their outcome events in their definitions; the framework publishes them.
    for (const { events } of JOBS) {
      if (!events) continue;
      for (const type of outcomeEventTypes(events.success)) named.add(type);
      for (const type of outcomeEventTypes(events.failure)) named.add(type);
    }
    expect([...named].sort()).toEqual([...EMITTED].sort());
    for (const type of named) expect(isEventType(type), type).toBe(true);
  });

  it.each(EMITTED)('describes the payload of %s, and docs/webhooks.md documents it', (type) => {
    expect(EVENT_TYPES[type]).toContain('`event_data`');
    const docs = readFileSync(path.join(ROOT, 'docs/webhooks.md'), 'utf8');
    const headings = docs.split('\n').filter((line) => line.startsWith('### '));
    expect(
      headings.some((heading) => heading.includes(`\`${type}\``)),
      type,
    ).toBe(true);
  });
});
