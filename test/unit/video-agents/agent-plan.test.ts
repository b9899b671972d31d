/** The local planner: reading a prompt, and plans whose scenes fit the asked-for length. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../support/property-seed.js';
import { countWords } from '../../../lambdas/engines/text-generation/index.js';
import {
  estimateSeconds,
  formatOf,
  localPlan,
  MAX_PLAN_SCENES,
  type PlanningInput,
  planSeconds,
  SPEECH_WORDS_PER_SECOND,
  subjectOf,
  TARGET_SECONDS,
  targetSecondsOf,
  toneOf,
  topicOf,
} from '../../../lambdas/video-agents/agent-plan.js';

const input = (prompt: string, extra: Partial<PlanningInput> = {}): PlanningInput => ({
  prompt,
  messages: [],
  sources: [],
  mediaFiles: 0,
  presenter: true,
  styleMood: 'light',
  ...extra,
});

describe('reading the prompt', () => {
  it.each([
    ['a 45-second explainer about how solar panels work, friendly tone', 45],
    ['a 2 minute tutorial on sourdough', 120],
    ['30s promo for our bakery', 30],
    ['a video about cats', TARGET_SECONDS.default],
    ['a 3-second teaser', TARGET_SECONDS.min],
    ['a 20 minute documentary', TARGET_SECONDS.max],
  ])('%s lasts %i s', (prompt, seconds) => expect(targetSecondsOf(prompt)).toBe(seconds));

  it('finds the topic, its subject, the tone and the kind of video', () => {
    const prompt = 'a 45-second explainer about how solar panels work, friendly tone';
    expect(topicOf(prompt)).toBe('how solar panels work');
    expect(subjectOf(topicOf(prompt))).toBe('solar panels');
    expect(toneOf(prompt)).toBe('friendly');
    expect(formatOf(prompt)).toBe('explainer');
    expect(topicOf('Make a playful promo for our bakery.')).toBe('our bakery');
    expect(toneOf('an energetic launch video')).toBe('energetic');
    expect(subjectOf('why the sky is blue')).toBe('sky');
  });
});

describe('the local plan', () => {
  it('turns the solar panel prompt into a coherent six-scene explainer of about 45 seconds', () => {
    const plan = localPlan(input('a 45-second explainer about how solar panels work, friendly tone'));
    expect(plan.title).toBe('How Solar Panels Work');
    expect(plan.planner).toBe('local');
    expect(plan.scenes.map((scene) => scene.id)).toEqual([
      'scene_1',
      'scene_2',
      'scene_3',
      'scene_4',
      'scene_5',
      'scene_6',
    ]);
    expect(plan.scenes[0]?.narration).toMatch(
      /^Hi there! Have you ever wondered about how solar panels work\?/,
    );
    expect(plan.scenes.at(-1)?.on_screen_text).toBe('Recap');
    // The presenter opens and closes; full-frame cards between.
    expect(plan.scenes[0]?.visual).toBe('presenter');
    expect(plan.scenes.at(-1)?.visual).toBe('presenter');
    expect(plan.scenes.some((scene) => scene.visual === 'media')).toBe(true);
    expect(Math.abs(planSeconds(plan) - 45)).toBeLessThan(9);
    expect(plan.music_mood).toMatch(/warm upbeat/);
  });

  it('writes a scene per idea of source content, in its order', () => {
    const source =
      'Bees collect nectar from flowers. Back in the hive they pass it from bee to bee. They store it in wax cells. Fanning their wings dries it into honey.';
    const plan = localPlan(input('a 30-second explainer about how bees make honey', { sources: [source] }));
    const narration = plan.scenes.map((scene) => scene.narration).join(' ');
    expect(narration.indexOf('nectar')).toBeLessThan(narration.indexOf('wax cells'));
    expect(plan.scenes.length).toBeGreaterThanOrEqual(3);
  });

  it('places uploaded images and clips on full-frame scenes, in order, and no presenter without one', () => {
    const plan = localPlan(input('a 60-second explainer about volcanoes', { mediaFiles: 2 }));
    const placed = plan.scenes.filter((scene) => scene.media_file !== null);
    expect(placed.map((scene) => scene.media_file)).toEqual([0, 1]);
    for (const scene of placed) expect(scene.visual).toBe('media');
    const solo = localPlan(input('a 60-second explainer about volcanoes', { presenter: false }));
    for (const scene of solo.scenes) expect(scene.visual).toBe('media');
  });

  it('is deterministic, and times each scene by its words', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (prompt) => {
        fc.pre(prompt.trim() !== '');
        const plan = localPlan(input(prompt));
        expect(localPlan(input(prompt))).toEqual(plan);
        expect(plan.scenes.length).toBeGreaterThanOrEqual(2);
        expect(plan.scenes.length).toBeLessThanOrEqual(MAX_PLAN_SCENES);
        for (const scene of plan.scenes) {
          expect(scene.estimated_seconds).toBe(estimateSeconds(scene.narration));
          expect(scene.narration.trim()).not.toBe('');
        }
      }),
    );
  });

  it('sums its scenes to near the asked-for length when there is content enough', () => {
    const sentence = fc
      .array(
        fc.constantFrom(
          'solar',
          'energy',
          'cells',
          'light',
          'panels',
          'power',
          'silicon',
          'homes',
          'grid',
          'sun',
        ),
        {
          minLength: 4,
          maxLength: 14,
        },
      )
      .map((words) => `${words.join(' ')}.`);
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 120 }),
        fc.array(sentence, { minLength: 40, maxLength: 60 }),
        (seconds, sentences) => {
          const plan = localPlan(
            input(`a ${seconds}-second explainer about solar energy`, { sources: [sentences.join(' ')] }),
          );
          expect(plan.target_seconds).toBe(seconds);
          const words = plan.scenes.reduce((sum, scene) => sum + countWords(scene.narration), 0);
          // The words fit the length (a sentence more would pass it), and no scene is longer than the whole.
          expect(words).toBeLessThanOrEqual(seconds * SPEECH_WORDS_PER_SECOND + 20);
          expect(planSeconds(plan)).toBeGreaterThan(seconds * 0.75);
          expect(planSeconds(plan)).toBeLessThan(seconds * 1.25 + 5);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('takes the length of the latest message that gives one', () => {
    const plan = localPlan(
      input('a 45-second explainer about tides', { messages: ['make it 20 seconds', 'friendlier please'] }),
    );
    expect(plan.target_seconds).toBe(20);
  });
});
