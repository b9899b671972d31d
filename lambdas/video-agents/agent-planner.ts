/**
 * Who writes the plan: the text generation engine when one is configured (`TEXT_GENERATION_ENGINE`
 * `openai` or `bedrock`: a structured answer checked with zod, asked once more when it is invalid,
 * then the run fails with the reason), else the deterministic local planner (agent-plan.ts,
 * `localPlan`), which is not a language model and says so in the plan's `planner`.
 */
import { modelEnginesConfig, UNCONFIGURED_ENGINE } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import {
  TEXT_GENERATION_FAILURE_CODES,
  TextGenerationError,
  textGenerationEngine,
} from '../engines/text-generation/index.js';
import {
  type AgentPlan,
  localPlan,
  MAX_ON_SCREEN_TEXT,
  MAX_PLAN_SCENES,
  MAX_SCENE_NARRATION,
  type PlanningInput,
  planFromScript,
  plannedScriptSchema,
  SPEECH_WORDS_PER_SECOND,
  targetSecondsOf,
} from './agent-plan.js';

/** Engines that are not language models: the agent plans with its own deterministic planner then. */
const NOT_LANGUAGE_MODELS = new Set<string>([UNCONFIGURED_ENGINE, 'local', 'test-double']);

export const PLANNER_FAILURE = {
  /** The language model answered twice with something that is not a plan. */
  invalidPlan: 'text_generation_failed',
} as const;

const SYSTEM = `You are a video producer. You turn a request into the script and scene plan of a short narrated video.
Each scene has: narration (what the narrator says, spoken words only, at most ${MAX_SCENE_NARRATION} characters), on_screen_text (a short headline shown on screen, at most ${MAX_ON_SCREEN_TEXT} characters), and visual: "presenter" (a presenter speaks to camera) or "media" (a full-frame picture). Use 3 to ${MAX_PLAN_SCENES} scenes, one idea per scene. Also give a title and music_mood (a few words describing the background music). Narration is timed at ${SPEECH_WORDS_PER_SECOND} words per second: match the requested length.`;

function userPrompt(input: PlanningInput): string {
  const target = targetSecondsOf([input.prompt, ...input.messages].join(' '));
  const parts = [
    `Request: ${input.prompt}`,
    `Target length: about ${target} seconds (about ${Math.round(target * SPEECH_WORDS_PER_SECOND)} words of narration in all).`,
    input.presenter ? 'A presenter is available.' : 'No presenter: every scene is "media".',
    `Style mood: ${input.styleMood}.`,
  ];
  if (input.messages.length > 0)
    parts.push(`Follow-up instructions, in order:\n${input.messages.join('\n')}`);
  if (input.sources.length > 0)
    parts.push(`Source content to base the script on:\n${input.sources.join('\n\n').slice(0, 60_000)}`);
  return parts.join('\n\n');
}

/**
 * The plan of the input, and who wrote it.
 * @throws JobFailure `engine_unavailable` / `text_generation_failed` when the language model cannot plan
 */
export async function writePlan(input: PlanningInput): Promise<AgentPlan> {
  const configured = modelEnginesConfig().textGeneration.engine;
  if (NOT_LANGUAGE_MODELS.has(configured)) return localPlan(input);
  const engine = textGenerationEngine();
  let lastReason = '';
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      const result = await engine.generate({
        system:
          attempt === 1
            ? SYSTEM
            : `${SYSTEM}\nYour previous answer was rejected: ${lastReason} Answer again, following the schema exactly.`,
        prompt: userPrompt(input),
        json: plannedScriptSchema,
        maxTokens: 4096,
      });
      if (!result.json) throw new TextGenerationError('text_generation_failed', 'The answer has no JSON.');
      return planFromScript(
        result.json,
        input,
        result.model ? `${result.engine} (${result.model})` : result.engine,
      );
    } catch (error) {
      if (!(error instanceof TextGenerationError)) throw error;
      // Only an answer that is not a plan is asked again; an engine that cannot run fails at once.
      if (error.failureCode !== TEXT_GENERATION_FAILURE_CODES.textGenerationFailed) throw error;
      lastReason = error.message;
    }
  }
  throw new JobFailure(
    PLANNER_FAILURE.invalidPlan,
    `The text generation engine (${engine.name}) answered twice with something that is not a valid plan: ${lastReason} Nothing was charged.`,
  );
}
