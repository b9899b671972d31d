/**
 * A video agent's plan: the script and scene plan the agent writes from a prompt (and the files sent
 * with it), before anything is rendered. Pure: no engines, no I/O. Two writers share these types:
 * - the text generation engine (agent-planner.ts), whose structured answer is `plannedScriptSchema`;
 * - the deterministic local planner (`localPlan` here) when no language model is configured. It is
 *   NOT a language model: it reads the prompt (how long, what tone, what kind of video, what about)
 *   and any source text, and writes an outline narration from the prompt's own words and the source's
 *   sentences; it knows no facts of its own.
 *
 * Durations come from speech length: `SPEECH_WORDS_PER_SECOND` words a second at normal speed, plus
 * a breath between scenes, so a plan's scene durations sum to about its target.
 */
import { z } from 'zod';
import { contentTerms, countWords, rankSentences, splitSentences } from '../engines/text-generation/index.js';

/** Narration pace the plan is timed with: about 180 words a minute, as the speech engines speak at normal speed (eSpeak NG about 3.5 words a second, Polly about 2.7). */
export const SPEECH_WORDS_PER_SECOND = 3;
/** Silence allowed for around each scene's narration (a breath, the cut). */
export const SCENE_PAUSE_SECONDS = 0.4;
export const TARGET_SECONDS = { min: 10, max: 300, default: 45 } as const;
export const MAX_PLAN_SCENES = 20;
export const MAX_SCENE_NARRATION = 600;
export const MAX_ON_SCREEN_TEXT = 80;

export const SCENE_VISUALS = { presenter: 'presenter', media: 'media' } as const;
export type SceneVisual = (typeof SCENE_VISUALS)[keyof typeof SCENE_VISUALS];

export const TONES = [
  'friendly',
  'professional',
  'playful',
  'energetic',
  'calm',
  'serious',
  'inspiring',
  'casual',
] as const;
export type Tone = (typeof TONES)[number];

/** What a language model answers (checked with zod; one retry on an invalid answer). */
export const plannedScriptSchema = z.strictObject({
  title: z.string().trim().min(1).max(100),
  music_mood: z.string().trim().min(1).max(100),
  scenes: z
    .array(
      z.strictObject({
        narration: z.string().trim().min(1).max(MAX_SCENE_NARRATION),
        on_screen_text: z.string().trim().max(MAX_ON_SCREEN_TEXT),
        visual: z.enum([SCENE_VISUALS.presenter, SCENE_VISUALS.media]),
      }),
    )
    .min(1)
    .max(MAX_PLAN_SCENES),
});
export type PlannedScript = z.infer<typeof plannedScriptSchema>;

export interface PlanScene {
  /** `scene_1`, ...: the id the rendered video's scenes document gives the scene. */
  id: string;
  narration: string;
  on_screen_text: string;
  visual: SceneVisual;
  /** Seconds the narration takes at `SPEECH_WORDS_PER_SECOND` (and its pause). */
  estimated_seconds: number;
  /** The uploaded image or clip shown full frame (an index into the session's media files), if any. */
  media_file: number | null;
}

export interface AgentPlan {
  title: string;
  tone: Tone;
  /** What kind of video: `explainer`, `tutorial`, `promo`, ... */
  format: string;
  topic: string;
  target_seconds: number;
  music_mood: string;
  scenes: PlanScene[];
  /** Which planner wrote it: `local` or the text engine's name (and model). */
  planner: string;
}

/** What the planner reads: the prompt, the follow-up messages, text from files, media to place. */
export interface PlanningInput {
  prompt: string;
  /** Later messages of the conversation (chat mode), oldest first. */
  messages: string[];
  /** Text of the documents and text files sent (source content). */
  sources: string[];
  /** How many images and clips were sent (scene material). */
  mediaFiles: number;
  /** Whether a presenter (an avatar) can appear. */
  presenter: boolean;
  /** The style's music mood, mixed with the tone's. */
  styleMood: string;
}

export const estimateSeconds = (narration: string) =>
  Math.round((countWords(narration) / SPEECH_WORDS_PER_SECOND + SCENE_PAUSE_SECONDS) * 10) / 10;

export const planSeconds = (plan: Pick<AgentPlan, 'scenes'>) =>
  plan.scenes.reduce((sum, scene) => sum + scene.estimated_seconds, 0);

// ---------------------------------------------------------------------------------------------
// Reading the prompt

/** The text that says how long the video is: the latest message that gives a length, else the prompt. */
function latestLength(input: Pick<PlanningInput, 'prompt' | 'messages'>): string {
  const saying = [...input.messages].reverse().find((message) => LENGTH.test(message));
  return saying ?? input.prompt;
}

const LENGTH = /(\d+(?:\.\d+)?)\s*-?\s*(seconds?|secs?|s\b|minutes?|mins?|m\b)/i;

/** `45-second`, `45 s`, `2 minutes`, `1.5 min`: the length asked for, in seconds, clamped. */
export function targetSecondsOf(text: string): number {
  const match = LENGTH.exec(text);
  if (!match) return TARGET_SECONDS.default;
  const amount = Number(match[1]);
  const seconds = /^m/i.test(match[2] ?? '') ? amount * 60 : amount;
  return Math.min(TARGET_SECONDS.max, Math.max(TARGET_SECONDS.min, Math.round(seconds)));
}

const TONE_WORDS: Readonly<Record<Tone, readonly string[]>> = {
  friendly: ['friendly', 'warm', 'welcoming', 'approachable'],
  professional: ['professional', 'corporate', 'business', 'formal'],
  playful: ['playful', 'fun', 'funny', 'humorous', 'witty'],
  energetic: ['energetic', 'exciting', 'upbeat', 'hype', 'dynamic'],
  calm: ['calm', 'relaxed', 'soothing', 'gentle'],
  serious: ['serious', 'sober', 'documentary'],
  inspiring: ['inspiring', 'inspirational', 'motivational', 'uplifting'],
  casual: ['casual', 'conversational', 'chatty'],
};

export function toneOf(text: string): Tone {
  const words = new Set(text.toLowerCase().match(/[a-z]+/g) ?? []);
  return TONES.find((tone) => TONE_WORDS[tone].some((word) => words.has(word))) ?? 'friendly';
}

const FORMATS = ['explainer', 'tutorial', 'promo', 'ad', 'announcement', 'story', 'overview', 'pitch'];

export function formatOf(text: string): string {
  const lower = text.toLowerCase();
  return FORMATS.find((format) => new RegExp(`\\b${format}\\b`).test(lower)) ?? 'explainer';
}

/**
 * What the video is about: the first sentence without its length, its kind and its tone
 * ("a 45-second explainer about how solar panels work, friendly tone" → "how solar panels work").
 */
export function topicOf(prompt: string): string {
  const first = splitSentences(prompt)[0] ?? prompt;
  const clauses = first
    .split(/[,;]|\s+-\s+|\s+—\s+/)
    .map((clause) => clause.trim())
    .filter((clause) => clause && !/\b(tone|style|voice|feel|vibe)\b/i.test(clause));
  let topic = clauses[0] ?? first;
  const about = /\b(?:about|on|of|for|explaining|showing|covering|introducing)\s+(.+)$/i.exec(topic);
  if (about?.[1]) topic = about[1];
  topic = topic
    .replace(/^(?:please\s+)?(?:make|create|write|produce|give me|i want|i need)\s+/i, '')
    .replace(/^(?:an?|the)\s+/i, '')
    .replace(/\d+(?:\.\d+)?\s*-?\s*(?:seconds?|secs?|minutes?|mins?)\b\s*/i, '')
    .replace(/[.!?]+$/, '')
    .trim();
  return topic || first.replace(/[.!?]+$/, '').trim();
}

/** The topic's subject: its longest run of content words ("how solar panels work" → "solar panels"). */
export function subjectOf(topic: string): string {
  let words = topic.split(/\s+/).filter(Boolean);
  // "how solar panels work", "why the sky is blue": the subject sits between the question word and the verb.
  if (/^(how|why|what|when|where)$/i.test(words[0] ?? '') && words.length >= 3) {
    words = words.slice(1, -1);
    while (words.length > 1 && /^(is|are|was|were|do|does|did|can|could|will)$/i.test(words.at(-1) ?? ''))
      words = words.slice(0, -1);
    while (words.length > 1 && /^(the|a|an)$/i.test(words[0] ?? '')) words = words.slice(1);
    return words.join(' ');
  }
  const terms = new Set(contentTerms(topic));
  let best: string[] = [];
  let run: string[] = [];
  for (const word of words) {
    const bare = word.toLowerCase().replace(/[^\p{L}\p{N}'-]/gu, '');
    if (bare && terms.has(bare)) run.push(word.replace(/[^\p{L}\p{N}'-]/gu, ''));
    else run = [];
    if (run.length > best.length) best = [...run];
  }
  return best.length > 0 ? best.join(' ') : topic;
}

const titleCase = (text: string) =>
  text.replace(/\b(\p{L})(\p{L}*)/gu, (_, first: string, rest: string, offset: number) =>
    offset > 0 && /^(a|an|and|the|of|to|in|on|for|or|at|by)$/i.test(first + rest)
      ? first + rest
      : first.toUpperCase() + rest,
  );

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

// ---------------------------------------------------------------------------------------------
// The local planner

/** Openings and closings per tone: the only words the local planner writes that are not the prompt's. */
const VOICE: Readonly<Record<Tone, { hello: string; goodbye: string }>> = {
  friendly: { hello: 'Hi there!', goodbye: 'Thanks for watching, and see you next time!' },
  professional: { hello: 'Welcome.', goodbye: 'Thank you for your time.' },
  playful: { hello: 'Hey, you!', goodbye: 'That was fun. Catch you in the next one!' },
  energetic: { hello: "Let's go!", goodbye: "That's it. Now go and put it to work!" },
  calm: { hello: 'Hello, and welcome.', goodbye: 'Take a moment with that. Thank you for watching.' },
  serious: { hello: 'Here is what you need to know.', goodbye: 'Thank you for watching.' },
  inspiring: { hello: 'Imagine this.', goodbye: 'Now it is your turn. Thank you for watching.' },
  casual: { hello: 'Hey!', goodbye: 'Anyway, that is the gist. See you around!' },
};

/**
 * The beats of a video without source content, in order: each a headline and a narration about the
 * topic. The first and last always play; the middle ones as the length allows.
 */
function outlineBeats(topic: string, subject: string, tone: Tone): { headline: string; narration: string }[] {
  const voice = VOICE[tone];
  const Topic = capitalise(topic);
  return [
    {
      headline: titleCase(topic),
      narration: `${voice.hello} Have you ever wondered about ${topic}? In the next moments we will look at it together, one simple idea at a time.`,
    },
    {
      headline: 'The big picture',
      narration: `Here is the big picture. ${Topic} comes down to a few key ideas, and you do not need to be an expert to follow them.`,
    },
    {
      headline: `What ${subject} are about`.slice(0, MAX_ON_SCREEN_TEXT),
      narration: `First, let us get to know ${subject}: what they are, where you meet them, and the job they do every day.`,
    },
    {
      headline: 'Step by step',
      narration: `Next, we follow the process step by step, from where it starts to the result you can see, so each part makes sense on its own.`,
    },
    {
      headline: 'Why it matters',
      narration: `Why does this matter? Because understanding ${topic} helps you ask better questions and make better choices.`,
    },
    {
      headline: 'A common question',
      narration: `A question many people ask is what makes ${subject} work well. The answer is in the details we just walked through.`,
    },
    {
      headline: 'Try it yourself',
      narration: `Here is a tip: next time you come across ${subject}, look for each of the steps we covered and see them in action.`,
    },
    {
      headline: 'Recap',
      narration: `So that is ${topic}, in a nutshell. ${voice.goodbye}`,
    },
  ];
}

/** A short headline for a sentence: its first content words, title-cased. */
function headlineOf(sentence: string): string {
  const terms = [...new Set(contentTerms(sentence))].slice(0, 4);
  const headline =
    terms.length > 0 ? titleCase(terms.join(' ')) : sentence.split(/\s+/).slice(0, 5).join(' ');
  return headline.slice(0, MAX_ON_SCREEN_TEXT);
}

/** Scene ideas from source text: its most central sentences that fit the word budget, in their order, two a scene at most. */
function sourceIdeas(sources: string[], wordBudget: number): { headline: string; narration: string }[] {
  const text = sources.join('\n\n');
  const ranked = rankSentences(text);
  const chosen: typeof ranked = [];
  let words = 0;
  for (const sentence of ranked) {
    if (words + sentence.wordCount > wordBudget && chosen.length > 0) continue;
    chosen.push(sentence);
    words += sentence.wordCount;
  }
  chosen.sort((a, b) => a.index - b.index);
  const ideas: { headline: string; narration: string }[] = [];
  for (const sentence of chosen) {
    const current = ideas.at(-1);
    if (
      current &&
      countWords(current.narration) + sentence.wordCount <= 40 &&
      !/[.!?]\s.*[.!?]/.test(current.narration)
    )
      current.narration = `${current.narration} ${sentence.text}`;
    else ideas.push({ headline: headlineOf(sentence.text), narration: sentence.text });
  }
  return ideas.map((idea) => ({ ...idea, narration: idea.narration.slice(0, MAX_SCENE_NARRATION) }));
}

/** Which scenes show the presenter: the first and the last, and every third between. */
function visualOf(index: number, count: number, presenter: boolean): SceneVisual {
  if (!presenter) return SCENE_VISUALS.media;
  return index === 0 || index === count - 1 || index % 3 === 0
    ? SCENE_VISUALS.presenter
    : SCENE_VISUALS.media;
}

/** Gives each scene its id, timing, visual and media file (uploads go to the full-frame scenes in order). */
export function finishScenes(
  scenes: { narration: string; on_screen_text: string; visual?: SceneVisual }[],
  input: Pick<PlanningInput, 'mediaFiles' | 'presenter'>,
): PlanScene[] {
  let nextMedia = 0;
  return scenes.map((scene, index) => {
    const visual = input.presenter
      ? (scene.visual ?? visualOf(index, scenes.length, true))
      : SCENE_VISUALS.media;
    const media_file = visual === SCENE_VISUALS.media && nextMedia < input.mediaFiles ? nextMedia++ : null;
    return {
      id: `scene_${index + 1}`,
      narration: scene.narration,
      on_screen_text: scene.on_screen_text.slice(0, MAX_ON_SCREEN_TEXT),
      visual,
      estimated_seconds: estimateSeconds(scene.narration),
      media_file,
    };
  });
}

const TONE_MOODS: Readonly<Record<Tone, string>> = {
  friendly: 'warm upbeat acoustic',
  professional: 'corporate calm background',
  playful: 'playful quirky fun',
  energetic: 'energetic upbeat electronic',
  calm: 'calm ambient soft',
  serious: 'serious cinematic documentary',
  inspiring: 'inspiring uplifting piano',
  casual: 'light casual lofi',
};

export function musicMoodOf(tone: Tone, styleMood: string): string {
  return `${TONE_MOODS[tone]} ${styleMood}`.trim();
}

/**
 * The deterministic plan of a prompt. With source content (files' text, a prompt of several
 * sentences, follow-up messages), a scene per idea of it between an opening and a closing; without,
 * an outline of the topic. Either way as many scenes as fit the target length.
 */
export function localPlan(input: PlanningInput): AgentPlan {
  const everything = [input.prompt, ...input.messages].join(' ');
  const tone = toneOf(everything);
  const format = formatOf(input.prompt);
  const topic = topicOf(input.prompt);
  const subject = subjectOf(topic);
  const target = targetSecondsOf(latestLength(input));
  const wordBudget = Math.round(target * SPEECH_WORDS_PER_SECOND);
  // The first sentence of the prompt asks for the video; the rest, and the messages, say what to say.
  const promptContent = splitSentences(input.prompt).slice(1).join(' ');
  const sources = [promptContent, ...input.messages, ...input.sources].filter((text) => text.trim() !== '');
  const beats = outlineBeats(topic, subject, tone);
  // With content of its own the video needs only a short welcome and goodbye around it.
  const opening =
    sources.length > 0
      ? { headline: titleCase(topic), narration: `${VOICE[tone].hello} Here is ${topic}.` }
      : (beats[0] as { headline: string; narration: string });
  const closing =
    sources.length > 0
      ? { headline: 'Thanks for watching', narration: VOICE[tone].goodbye }
      : (beats.at(-1) as { headline: string; narration: string });
  const frame = countWords(opening.narration) + countWords(closing.narration);
  let middle: { headline: string; narration: string }[];
  if (sources.length > 0) {
    middle = sourceIdeas(sources, Math.max(10, wordBudget - frame));
  } else {
    middle = [];
    let words = frame;
    for (const beat of beats.slice(1, -1)) {
      const count = countWords(beat.narration);
      // A beat goes in when it brings the length nearer the target than leaving it out.
      if (Math.abs(wordBudget - (words + count)) >= Math.abs(wordBudget - words)) break;
      middle.push(beat);
      words += count;
    }
  }
  const ordered = [opening, ...middle, closing].slice(0, MAX_PLAN_SCENES);
  const scenes = finishScenes(
    ordered.map((beat) => ({ narration: beat.narration, on_screen_text: beat.headline })),
    input,
  );
  return {
    title: titleCase(topic).slice(0, 100),
    tone,
    format,
    topic,
    target_seconds: target,
    music_mood: musicMoodOf(tone, input.styleMood),
    scenes,
    planner: 'local',
  };
}

/** A plan from a language model's answer (its scenes timed and numbered like the local planner's). */
export function planFromScript(script: PlannedScript, input: PlanningInput, planner: string): AgentPlan {
  const everything = [input.prompt, ...input.messages].join(' ');
  const topic = topicOf(input.prompt);
  return {
    title: script.title,
    tone: toneOf(everything),
    format: formatOf(input.prompt),
    topic,
    target_seconds: targetSecondsOf(latestLength(input)),
    music_mood: script.music_mood,
    scenes: finishScenes(script.scenes, input),
    planner,
  };
}

/** The plan as the agent tells it in its message: numbered scenes with their timing. */
export function describePlan(plan: AgentPlan): string {
  const lines = plan.scenes.map(
    (scene, index) =>
      `${index + 1}. ${scene.on_screen_text || '(no on-screen text)'} (${scene.visual === 'presenter' ? 'presenter' : 'full frame'}, ~${Math.round(scene.estimated_seconds)} s): ${scene.narration}`,
  );
  return `Here is my plan for "${plan.title}": ${plan.scenes.length} scenes, about ${Math.round(planSeconds(plan))} seconds, ${plan.tone} tone, music: ${plan.music_mood}.\n${lines.join('\n')}`;
}
