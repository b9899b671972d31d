/**
 * Who plans: the text generation engine when one is configured (a language model stand-in speaking the
 * OpenAI API here): its structured answer is checked, asked once more when invalid, and the run fails
 * with the reason after a second invalid answer; without one, the deterministic local planner.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobFailure } from '../../../lambdas/core/errors.js';
import { resetProcessState } from '../../../lambdas/core/process-state.js';
import type { PlanningInput } from '../../../lambdas/video-agents/agent-plan.js';
import { writePlan } from '../../../lambdas/video-agents/agent-planner.js';
import { type ModelServer, type ModelServerAnswer, startModelServer } from '../../support/model-server.js';

const input: PlanningInput = {
  prompt: 'a 30-second explainer about how tides work, calm tone',
  messages: [],
  sources: [],
  mediaFiles: 0,
  presenter: true,
  styleMood: 'ambient',
};

const GOOD = {
  title: 'Tides, Gently',
  music_mood: 'calm ambient',
  scenes: [
    { narration: 'The moon pulls on the oceans.', on_screen_text: 'The moon', visual: 'presenter' },
    { narration: 'Water bulges toward it and away from it.', on_screen_text: 'Two bulges', visual: 'media' },
    {
      narration: 'As Earth turns, coasts pass through the bulges.',
      on_screen_text: 'High and low',
      visual: 'presenter',
    },
  ],
};

const answer = (content: unknown): ModelServerAnswer => ({
  json: {
    choices: [
      {
        message: {
          role: 'assistant',
          content: typeof content === 'string' ? content : JSON.stringify(content),
        },
      },
    ],
  },
});

let server: ModelServer | undefined;

async function useModel(answers: ModelServerAnswer[]): Promise<ModelServer> {
  server = await startModelServer(
    (request) => answers[Math.min(request.index, answers.length - 1)] as ModelServerAnswer,
  );
  vi.stubEnv('TEXT_GENERATION_ENGINE', 'openai');
  vi.stubEnv('TEXT_GENERATION_BASE_URL', server.baseUrl);
  vi.stubEnv('TEXT_GENERATION_MODEL', 'test-model');
  vi.stubEnv('MODEL_HOSTS_ALLOW_PRIVATE', 'true');
  vi.stubEnv('MODEL_HTTP_RETRIES', '0');
  await resetProcessState();
  return server;
}

beforeEach(async () => {
  vi.stubEnv('TEXT_GENERATION_ENGINE', undefined);
  await resetProcessState();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await resetProcessState();
  await server?.close();
  server = undefined;
});

describe('the planner', () => {
  it('is the local planner when no language model is configured', async () => {
    const plan = await writePlan(input);
    expect(plan.planner).toBe('local');
    expect(plan.tone).toBe('calm');
  });

  it("takes the language model's structured answer, timed and numbered", async () => {
    const model = await useModel([answer(GOOD)]);
    const plan = await writePlan(input);
    expect(plan.planner).toBe('openai (test-model)');
    expect(plan.title).toBe('Tides, Gently');
    expect(plan.scenes.map((scene) => [scene.id, scene.visual])).toEqual([
      ['scene_1', 'presenter'],
      ['scene_2', 'media'],
      ['scene_3', 'presenter'],
    ]);
    expect(plan.target_seconds).toBe(30);
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.json(0))).toMatch(/how tides work/);
  });

  it('asks once more after an invalid answer, saying what was wrong', async () => {
    const model = await useModel([answer({ title: 'No scenes' }), answer(GOOD)]);
    const plan = await writePlan(input);
    expect(plan.scenes).toHaveLength(3);
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.json(1))).toMatch(/previous answer was rejected/);
  });

  it('fails with the reason after a second invalid answer', async () => {
    const model = await useModel([answer('not json at all'), answer({ ...GOOD, scenes: [] })]);
    const failure = await writePlan(input).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JobFailure);
    expect((failure as JobFailure).failureCode).toBe('text_generation_failed');
    expect((failure as JobFailure).message).toMatch(/answered twice with something that is not a valid plan/);
    expect(model.requests).toHaveLength(2);
  });
});
