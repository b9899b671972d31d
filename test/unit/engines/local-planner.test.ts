/**
 * The local text engine: a deterministic planner on wink-nlp, not a language model. Its sentence
 * splitting of real text, its keywords, and its three extractive tasks, each the same for the same input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createTextGenerationEngine,
  keywords,
  splitSentences,
} from '../../../lambdas/engines/text-generation/index.js';

const ARTICLE = [
  'Dr. Maria Lopez opened the new solar plant in Tucson on Monday.',
  'The plant will power 40,000 homes, and it cost $120 million to build.',
  'Solar panels cover 300 acres of former farmland.',
  'Critics said the solar plant uses too much water for cleaning the panels.',
  'Lopez answered that the plant cleans its panels with recycled water.',
  'Construction began in 2024 under the U.S. clean energy program.',
].join(' ');

const planner = createTextGenerationEngine('local');

describe('sentences and keywords', () => {
  it('splits real English into sentences without breaking on abbreviations or numbers', () => {
    expect(splitSentences(ARTICLE)).toEqual([
      'Dr. Maria Lopez opened the new solar plant in Tucson on Monday.',
      'The plant will power 40,000 homes, and it cost $120 million to build.',
      'Solar panels cover 300 acres of former farmland.',
      'Critics said the solar plant uses too much water for cleaning the panels.',
      'Lopez answered that the plant cleans its panels with recycled water.',
      'Construction began in 2024 under the U.S. clean energy program.',
    ]);
    expect(splitSentences('Is it ready? Yes! Ship it.')).toEqual(['Is it ready?', 'Yes!', 'Ship it.']);
  });

  it('finds what the text is about, most frequent first', () => {
    expect(keywords(ARTICLE, 4)).toEqual(['plant', 'solar', 'panels', 'lopez']);
  });
});

describe('the planner tasks', () => {
  it('summarizes with the most central third of the sentences, in their order', async () => {
    const result = await planner.generate({ task: 'summarize', prompt: ARTICLE });
    expect(result).toEqual({
      engine: 'local',
      text: 'Dr. Maria Lopez opened the new solar plant in Tucson on Monday. Critics said the solar plant uses too much water for cleaning the panels.',
      truncated: false,
    });
  });

  it('titles from the most central sentence, at most ten words', async () => {
    const result = await planner.generate({
      task: 'title',
      prompt: ARTICLE,
      json: z.object({ title: z.string() }),
    });
    expect(result.json).toEqual({ title: 'Dr. Maria Lopez opened the new solar plant in Tucson' });
  });

  it('makes a script of scenes of at most two sentences, and says when the budget cut it', async () => {
    const schema = z.object({
      title: z.string(),
      scenes: z.array(z.object({ text: z.string() })),
      keywords: z.array(z.string()),
    });
    const full = await planner.generate({ task: 'script', prompt: ARTICLE, json: schema });
    expect(full.json?.scenes.map(({ text }) => text)).toEqual([
      'Dr. Maria Lopez opened the new solar plant in Tucson on Monday. The plant will power 40,000 homes, and it cost $120 million to build.',
      'Solar panels cover 300 acres of former farmland. Critics said the solar plant uses too much water for cleaning the panels.',
      'Lopez answered that the plant cleans its panels with recycled water. Construction began in 2024 under the U.S. clean energy program.',
    ]);
    expect(full.truncated).toBe(false);

    const short = await planner.generate({ task: 'script', prompt: ARTICLE, maxTokens: 40 });
    expect(short.truncated).toBe(true);
    // 40 tokens are 30 words: the first scene's two sentences fit, the third sentence does not.
    expect(short.text.split('\n\n')).toEqual([full.json?.scenes[0]?.text]);
  });

  it('says it is not a language model when given no task, or a schema it cannot fill', async () => {
    await expect(planner.generate({ prompt: 'Write a funny script about cats' })).rejects.toMatchObject({
      failureCode: 'invalid_input',
      message: expect.stringContaining('a deterministic planner, not a language model'),
    });
    await expect(
      planner.generate({
        task: 'title',
        prompt: ARTICLE,
        json: z.object({ headline: z.string(), mood: z.string() }),
      }),
    ).rejects.toMatchObject({
      failureCode: 'invalid_input',
      message: expect.stringContaining('title, keywords'),
    });
  });

  it('gives the same answer for the same input, every time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.constantFrom(...splitSentences(ARTICLE), 'Wind turbines spin.', 'The grid needs storage.'),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        fc.constantFrom('summarize' as const, 'title' as const, 'script' as const),
        async (sentences, task) => {
          const prompt = sentences.join(' ');
          const first = await planner.generate({ task, prompt });
          const second = await createTextGenerationEngine('local').generate({ task, prompt });
          expect(second).toEqual(first);
          expect(first.text.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 40 },
    );
  });
});
