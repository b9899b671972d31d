/**
 * `local`: the deterministic planner (local-planner.ts). NOT a language model: it ignores `system`,
 * follows no instruction in the prompt, and writes nothing of its own; it rearranges the prompt's own
 * sentences for one of three tasks (`task` is required):
 * - `summarize`: the most central third of the sentences (at least one), in their order;
 * - `title`: the most central sentence, at most 10 words, without its final punctuation;
 * - `script`: every sentence in order, grouped into scenes of at most two sentences and 40 words.
 * Each stops at the word budget (3/4 of `maxTokens`), and says so (`truncated`). With `json`, the
 * candidate object is `{ summary, sentences, keywords }`, `{ title, keywords }` or
 * `{ title, scenes: [{ text }], keywords }`; a schema that object does not satisfy is `invalid_input`.
 */

import { countWords, keywords, rankSentences, splitSentences } from './local-planner.js';
import {
  LOCAL_PLANNER_TASKS,
  type LocalPlannerTask,
  type TextGenerationEngine,
  TextGenerationError,
  type TextGenerationRequest,
  type TextGenerationResult,
  validateGenerationRequest,
} from './text-generation-engine.js';

export const LOCAL_PLANNER_ENGINE = 'local';

const TITLE_MAX_WORDS = 10;
const SCENE_MAX_SENTENCES = 2;
const SCENE_MAX_WORDS = 40;
/** Words per token: the usual ratio for English with a BPE tokenizer. */
const WORDS_PER_TOKEN = 0.75;

interface Plan {
  text: string;
  candidate: Record<string, unknown>;
  truncated: boolean;
}

/** The first `maxWords` words of a sentence. */
function clipWords(text: string, maxWords: number): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length <= maxWords ? text : words.slice(0, maxWords).join(' ');
}

function title(prompt: string, budget: number): Plan {
  const best = rankSentences(prompt)[0];
  const limit = Math.min(TITLE_MAX_WORDS, budget);
  const clipped = clipWords(best?.text ?? prompt.trim(), limit).replace(/[\s.,;:!?…]+$/u, '');
  const text = clipped.charAt(0).toUpperCase() + clipped.slice(1);
  return {
    text,
    candidate: { title: text, keywords: keywords(prompt) },
    truncated: (best?.wordCount ?? 0) > limit,
  };
}

function summarize(prompt: string, budget: number): Plan {
  const ranked = rankSentences(prompt);
  const wanted = Math.max(1, Math.ceil(ranked.length / 3));
  const chosen: typeof ranked = [];
  let words = 0;
  let truncated = false;
  for (const sentence of ranked.slice(0, wanted)) {
    if (chosen.length > 0 && words + sentence.wordCount > budget) {
      truncated = true;
      break;
    }
    chosen.push(sentence);
    words += sentence.wordCount;
  }
  const sentences = chosen.sort((a, b) => a.index - b.index).map(({ text }) => text);
  const summary = sentences.join(' ');
  return { text: summary, candidate: { summary, sentences, keywords: keywords(prompt) }, truncated };
}

function script(prompt: string, budget: number): Plan {
  const scenes: string[][] = [];
  let words = 0;
  let truncated = false;
  for (const sentence of splitSentences(prompt)) {
    const count = countWords(sentence);
    if (words + count > budget && words > 0) {
      truncated = true;
      break;
    }
    words += count;
    const current = scenes.at(-1);
    if (
      current &&
      current.length < SCENE_MAX_SENTENCES &&
      countWords(current.join(' ')) + count <= SCENE_MAX_WORDS
    ) {
      current.push(sentence);
    } else scenes.push([sentence]);
  }
  const sceneTexts = scenes.map((scene) => scene.join(' '));
  return {
    text: sceneTexts.join('\n\n'),
    candidate: {
      title: title(prompt, TITLE_MAX_WORDS).text,
      scenes: sceneTexts.map((text) => ({ text })),
      keywords: keywords(prompt),
    },
    truncated,
  };
}

const TASKS: Readonly<Record<LocalPlannerTask, (prompt: string, budget: number) => Plan>> = {
  summarize,
  title,
  script,
};

class LocalPlannerEngine implements TextGenerationEngine {
  readonly name = LOCAL_PLANNER_ENGINE;

  async generate<T = unknown>(request: TextGenerationRequest<T>): Promise<TextGenerationResult<T>> {
    const maxTokens = validateGenerationRequest(request);
    const plan = request.task && Object.hasOwn(TASKS, request.task) ? TASKS[request.task] : undefined;
    if (!plan) {
      throw new TextGenerationError(
        'invalid_input',
        `The local text engine is a deterministic planner, not a language model: it cannot follow a prompt. Give it a task (${Object.values(LOCAL_PLANNER_TASKS).join(', ')}) and the text to work from, or configure TEXT_GENERATION_ENGINE=openai or bedrock.`,
      );
    }
    const budget = Math.max(1, Math.floor(maxTokens * WORDS_PER_TOKEN));
    const { text, candidate, truncated } = plan(request.prompt, budget);
    if (!request.json) return { engine: this.name, text, truncated };
    const parsed = request.json.safeParse(candidate);
    if (!parsed.success) {
      throw new TextGenerationError(
        'invalid_input',
        `The local planner (not a language model) answers ${request.task} with the fields ${Object.keys(candidate).join(', ')}; the requested schema asks for something else (${parsed.error.issues[0]?.message ?? 'no match'}).`,
      );
    }
    return { engine: this.name, text: JSON.stringify(candidate), json: parsed.data, truncated };
  }
}

/** The deterministic local planner. */
export function createLocalPlannerEngine(): TextGenerationEngine {
  return new LocalPlannerEngine();
}
