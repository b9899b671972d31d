/**
 * The AI clipping job's steps (ai-clipping-job.ts): Plan and Render, in the media container on AWS.
 * Plan stores what Render needs (the chosen clips and the words) as a work file; Render makes the
 * clips still `pending` in the record, so a Render that runs again (a retry, a restarted workflow)
 * carries on where it stopped.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { clippingCredits } from '../billing/plans.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { decodeMonoPcm16 } from '../engines/composition/audio-decode.js';
import { CAPTION_PRESETS, captionStyleOf } from '../engines/composition/caption-presets.js';
import { captionCuesFromWords } from '../engines/composition/captions.js';
import { compositionEngine } from '../engines/composition/index.js';
import { probeMedia } from '../engines/composition/probe.js';
import { SpeechRecognitionError } from '../engines/recognition/index.js';
import { encodeWavPcm16 } from '../engines/speech/wav.js';
import { textGenerationEngine } from '../engines/text-generation/index.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { downloadMediaObject, putMediaObject, readMediaObject } from '../media/media-store.js';
import { sourceWords } from '../videos/source-transcript.js';
import { getVideo } from '../videos/videos.js';
import { aiClippingJob, CLIPPING_FAILURE, type ClippingRef } from './ai-clipping-job.js';
import {
  type ClipCandidate,
  candidateClips,
  DURATION_RANGES,
  type PlannerWord,
  selectClips,
  sentencesOf,
  withJudgement,
} from './clip-planner.js';
import {
  type AiClippingRecord,
  CLIP_STATUS,
  CLIPPING_STATUS,
  type ClipRecord,
  clippingMediaKeys,
  updateRunningClipping,
} from './clipping-records.js';
import { reframeClip } from './reframe.js';

/** What Plan hands Render (`work/plan.json`): the source's frame and the words on its timeline. */
interface ClippingPlan {
  width: number;
  height: number;
  fps: number;
  words: PlannerWord[];
}

/** Audio is analysed at 16 kHz mono: what recognizers take, and enough for loudness. */
const ANALYSIS_RATE = 16_000;
/** Candidates of each duration the text engine is asked to judge (the best by the features). */
const JUDGED_PER_DURATION = 8;

const workDirOf = (ref: ClippingRef) => mkdtemp(join(config().mediaWorkDir, `clipping-${ref.clipping_id}-`));

/** RMS level (dBFS) of the samples between two times; -90 for silence. */
function levelDb(samples: Int16Array, fromMs: number, toMs: number): number {
  const from = Math.max(0, Math.floor((fromMs / 1000) * ANALYSIS_RATE));
  const to = Math.min(samples.length, Math.floor((toMs / 1000) * ANALYSIS_RATE));
  let sum = 0;
  for (let index = from; index < to; index++) sum += ((samples[index] ?? 0) / 32768) ** 2;
  return Math.max(-90, 10 * Math.log10(sum / Math.max(1, to - from) + 1e-12));
}

/** A video of this service whose words were not stored needs hearing like any other source. */
async function needsHearing(record: AiClippingRecord): Promise<boolean> {
  if (!record.source.video_id) return true;
  const video = await getVideo(record.workspace_id, record.source.video_id, true);
  return !video?.outputs?.transcript_key;
}

const judgementSchema = z.object({
  clips: z.array(z.object({ index: z.number().int(), score: z.number().min(0).max(100), title: z.string() })),
});

/**
 * A language model's judgement of the best candidates of each duration (0-100: would a viewer watch
 * it to the end and share it?) and a title for each; the local planner cannot judge (it is not a
 * model), and without a text engine there is no judgement.
 */
async function judged(
  record: AiClippingRecord,
  candidates: ClipCandidate[],
): Promise<{ candidates: ClipCandidate[]; titles: Map<ClipCandidate, string>; engine: string | null }> {
  const engine = textGenerationEngine();
  const titles = new Map<ClipCandidate, string>();
  if (engine.name === 'none' || engine.name === 'local') return { candidates, titles, engine: null };
  const shortlist = record.output_settings.duration_types.flatMap((type) =>
    candidates.filter((candidate) => candidate.durationType === type).slice(0, JUDGED_PER_DURATION),
  );
  const result = await engine.generate({
    system:
      'You pick highlights of a video for short-form social media. For each numbered candidate transcript, give a score from 0 to 100 (how likely a viewer watches it to the end and shares it: a strong hook, one clear idea, emotion, payoff) and a catchy title of at most 8 words.' +
      (record.output_settings.prompt ? ` Editorial guidance: ${record.output_settings.prompt}` : ''),
    prompt: JSON.stringify({
      candidates: shortlist.map((candidate, index) => ({ index, transcript: candidate.text })),
    }),
    json: judgementSchema,
    maxTokens: 2048,
  });
  const byIndex = new Map((result.json?.clips ?? []).map((clip) => [clip.index, clip]));
  const judgedList = shortlist.map((candidate, index) => {
    const opinion = byIndex.get(index);
    if (!opinion) return candidate;
    const rescored = withJudgement(candidate, opinion.score);
    if (opinion.title.trim()) titles.set(rescored, opinion.title.trim().slice(0, 120));
    return rescored;
  });
  return { candidates: judgedList, titles, engine: engine.name };
}

/** A clip's title: the judge's, else the local planner's extractive title, else its first sentence. */
async function titleOf(candidate: ClipCandidate, judgedTitle: string | undefined): Promise<[string, string]> {
  if (judgedTitle) return [judgedTitle, 'judge'];
  const engine = textGenerationEngine();
  if (engine.name === 'local') {
    const result = await engine.generate({ prompt: candidate.text, task: 'title', maxTokens: 24 });
    if (result.text.trim()) return [result.text.trim(), 'local'];
  }
  const first = candidate.text.match(/^.*?[.!?…](?=\s|$)/u)?.[0] ?? candidate.text;
  return [first.length > 80 ? `${first.slice(0, 79).trimEnd()}…` : first, 'first_sentence'];
}

async function plan(ref: ClippingRef): Promise<null> {
  const record = await resumeJob(aiClippingJob, ref);
  if (!record) return null;
  if (!(await updateRunningClipping(record, { status: CLIPPING_STATUS.running, progress: 5 }))) return null;
  const workDir = await workDirOf(ref);
  try {
    const source = await downloadMediaObject(record.source.key, join(workDir, 'source'));
    const info = await probeMedia(source).catch((error: unknown) => {
      throw new JobFailure(CLIPPING_FAILURE.invalidMedia, 'The source is not a video ffmpeg can read.', {
        cause: error,
      });
    });
    const picture = info.streams.find((stream) => stream.type === 'video' && !stream.attachedPicture);
    if (!picture?.width || !picture.height || !(info.durationSeconds > 0)) {
      throw new JobFailure(
        CLIPPING_FAILURE.invalidMedia,
        'The source has no moving picture to clip (an audio file, or a still image).',
      );
    }
    const sourceMs = Math.round(info.durationSeconds * 1000);
    await updateRunningClipping(record, {
      progress: 10,
      source_duration: Math.round(info.durationSeconds * 100) / 100,
      credits_due: Math.min(record.credits_reserved ?? 0, clippingCredits(info.durationSeconds)),
    });

    const hasAudio = info.streams.some((stream) => stream.type === 'audio');
    const samples = hasAudio
      ? await decodeMonoPcm16(source, { sampleRate: ANALYSIS_RATE, workDir })
      : new Int16Array(0);
    let audioKey: string | null = null;
    if (hasAudio && (await needsHearing(record))) {
      audioKey = clippingMediaKeys.work(record, 'audio.wav');
      await putMediaObject(
        record.workspace_id,
        audioKey,
        encodeWavPcm16(samples, ANALYSIS_RATE),
        'audio/wav',
      );
    }
    const heard = await sourceWords({
      workspaceId: record.workspace_id,
      videoId: record.source.video_id,
      mediaKey: record.source.key,
      audioKey,
      language: record.input_language,
      startMs: 0,
      durationMs: sourceMs,
      runId: record.clipping_id,
      workPrefix: clippingMediaKeys.work(record, ''),
    }).catch((error: unknown) => {
      if (error instanceof SpeechRecognitionError && error.failureCode === 'engine_unavailable') {
        // The choice documented in the README: no clips without words (pauses and scene changes say
        // nothing about which moments are worth a clip, and there would be no captions).
        throw new JobFailure(
          CLIPPING_FAILURE.engineUnavailable,
          `AI clipping chooses clips by what is said, and this source is not a video this service made (whose words it keeps), so it must be heard. ${error.message}`,
          { cause: error },
        );
      }
      throw error;
    });
    const words: PlannerWord[] = heard.words.map(({ word, startMs, endMs }) => ({ word, startMs, endMs }));
    if (words.length === 0) {
      throw new JobFailure(
        CLIPPING_FAILURE.noSpeech,
        'No speech was heard in the video: AI clipping chooses clips by what is said, so there is nothing to clip.',
      );
    }
    await updateRunningClipping(record, { progress: 15 });

    const sentences = sentencesOf(words);
    const candidates = candidateClips({
      words,
      sourceMs,
      durationTypes: record.output_settings.duration_types,
      prompt: record.output_settings.prompt,
      ...(hasAudio
        ? {
            sentenceLoudnessDb: sentences.map((sentence) =>
              levelDb(samples, sentence.startMs, sentence.endMs),
            ),
          }
        : {}),
    });
    if (candidates.length === 0) {
      const ranges = record.output_settings.duration_types
        .map(
          (type) => `${DURATION_RANGES[type].minMs / 1000}–${DURATION_RANGES[type].maxMs / 1000} s (${type})`,
        )
        .join(', ');
      const spokenMs = (words.at(-1) as PlannerWord).endMs - (words[0] as PlannerWord).startMs;
      throw new JobFailure(
        CLIPPING_FAILURE.noClips,
        `No run of whole sentences lasts ${ranges}: the video has ${(spokenMs / 1000).toFixed(1)} s of speech in ${sentences.length} sentence(s). Ask for a shorter duration_types value, or clip a longer video.`,
      );
    }
    const judgement = await judged(record, candidates);
    const ranked = [...judgement.candidates, ...candidates.filter((c) => !judgement.candidates.includes(c))];
    const chosen = selectClips(
      // A judged candidate replaces its unjudged self.
      ranked.filter(
        (candidate, index) =>
          ranked.findIndex(
            (other) =>
              other.durationType === candidate.durationType &&
              other.firstSentence === candidate.firstSentence &&
              other.lastSentence === candidate.lastSentence,
          ) === index,
      ),
    );
    const titleEngines = new Set<string>();
    const clips: ClipRecord[] = [];
    for (const candidate of chosen) {
      const [title, titleEngine] = await titleOf(candidate, judgement.titles.get(candidate));
      titleEngines.add(titleEngine === 'judge' ? (judgement.engine as string) : titleEngine);
      clips.push({
        id: newId(),
        status: CLIP_STATUS.pending,
        title,
        duration_type: candidate.durationType,
        start_ms: candidate.startMs,
        end_ms: candidate.endMs,
        virality_score: candidate.score,
        features: candidate.features,
        duration_seconds: null,
        aspect_ratio: null,
        video_key: null,
        thumbnail_key: null,
      });
    }
    const clippingPlan: ClippingPlan = {
      width: picture.width,
      height: picture.height,
      fps: Math.min(60, Math.max(1, Math.round(picture.frameRate ?? 25))),
      words,
    };
    await putMediaObject(
      record.workspace_id,
      clippingMediaKeys.work(record, 'plan.json'),
      Buffer.from(JSON.stringify(clippingPlan)),
      'application/json',
    );
    await updateRunningClipping(record, {
      progress: 20,
      clips,
      transcript_source: heard.source,
      input_language: record.input_language ?? heard.language,
      engines: {
        ...record.engines,
        ...(heard.engine ? { recognition: heard.engine } : {}),
        ...(judgement.engine ? { judge: judgement.engine } : {}),
        titles: [...titleEngines].join(', '),
      },
    });
    return null;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Characters a caption line holds on each frame shape (narrow frames wrap sooner). */
const LINE_CHARACTERS = { portrait: 24, square: 30, landscape: 42 } as const;

/** The clip's words as captions on its own timeline, grouped for the style. */
function clipCues(record: AiClippingRecord, clip: ClipRecord, words: readonly PlannerWord[]) {
  if (!record.output_settings.captions) return [];
  const inside = words
    .filter((word) => word.startMs >= clip.start_ms && word.endMs <= clip.end_ms)
    .map((word) => ({
      word: word.word,
      startMs: word.startMs - clip.start_ms,
      endMs: word.endMs - clip.start_ms,
    }));
  const single = CAPTION_PRESETS[record.output_settings.caption_style].singleWord === true;
  return captionCuesFromWords(inside, {
    untilMs: clip.end_ms - clip.start_ms,
    ...(single
      ? { maxCharsPerLine: 1, maxLines: 1, minCueMs: 0 }
      : { maxCharsPerLine: LINE_CHARACTERS[record.output_settings.aspect_ratio] }),
  });
}

async function renderClip(
  record: AiClippingRecord,
  clip: ClipRecord,
  clippingPlan: ClippingPlan,
  sourcePath: string,
  workDir: string,
): Promise<{ clip: ClipRecord; facesFound: number; samples: number }> {
  const clipDir = join(workDir, clip.id);
  await mkdir(join(clipDir, 'composed'), { recursive: true });
  const aspect = record.output_settings.aspect_ratio;
  const reframed = await reframeClip({
    sourcePath,
    startMs: clip.start_ms,
    endMs: clip.end_ms,
    frameWidth: clippingPlan.width,
    frameHeight: clippingPlan.height,
    aspect,
    workDir: clipDir,
    name: 'clip',
  });
  const composed = await compositionEngine().compose({
    workDir: join(clipDir, 'composed'),
    width: reframed.width,
    height: reframed.height,
    fps: clippingPlan.fps,
    format: 'mp4',
    scenes: [
      {
        durationMs: clip.end_ms - clip.start_ms,
        background: { type: 'video', path: reframed.path, mode: 'freeze', volume: 1 },
      },
    ],
    captions: clipCues(record, clip, clippingPlan.words),
    burnCaptions: true,
    captionStyle: captionStyleOf(record.output_settings.caption_style),
  });
  const videoKey = clippingMediaKeys.output(record, `clips/${clip.id}.mp4`);
  const thumbnailKey = clippingMediaKeys.output(record, `clips/${clip.id}.jpg`);
  await putMediaObject(record.workspace_id, videoKey, await readFile(composed.videoPath), 'video/mp4');
  await putMediaObject(
    record.workspace_id,
    thumbnailKey,
    await readFile(composed.thumbnailPath),
    'image/jpeg',
  );
  return {
    clip: {
      ...clip,
      status: CLIP_STATUS.completed,
      duration_seconds: Math.round(composed.durationSeconds * 100) / 100,
      aspect_ratio: aspect,
      video_key: videoKey,
      thumbnail_key: thumbnailKey,
    },
    facesFound: reframed.facesFound,
    samples: reframed.samples,
  };
}

async function render(ref: ClippingRef): Promise<null> {
  let record = await resumeJob(aiClippingJob, ref);
  if (!record) return null;
  const workDir = await workDirOf(ref);
  try {
    const clippingPlan = JSON.parse(
      (await readMediaObject(clippingMediaKeys.work(record, 'plan.json'))).toString('utf8'),
    ) as ClippingPlan;
    const source = await downloadMediaObject(record.source.key, join(workDir, 'source'));
    const clips = [...record.clips];
    const faces = { found: 0, samples: 0 };
    for (const [index, clip] of clips.entries()) {
      if (clip.status !== CLIP_STATUS.pending) continue;
      const made = await renderClip(record, clip, clippingPlan, source, workDir);
      clips[index] = made.clip;
      faces.found += made.facesFound;
      faces.samples += made.samples;
      const updated = await updateRunningClipping(record, {
        clips,
        progress: 20 + Math.round((75 * (index + 1)) / clips.length),
      });
      // Deleted meanwhile: what this run wrote goes (or another run ended it).
      if (!updated) {
        await endJob(aiClippingJob, aiClippingJob.refOf(record), undefined);
        return null;
      }
      record = updated;
    }
    const done = await updateRunningClipping(record, {
      status: CLIPPING_STATUS.completed,
      progress: 100,
      completed_at: nowSeconds(),
      engines: {
        ...record.engines,
        composition: compositionEngine().name,
        // A rerun after a crash counts only the clips it made.
        reframing:
          faces.samples > 0
            ? `face_landmarks (a face in ${faces.found} of ${faces.samples} sampled frames)`
            : 'none (the source already has the aspect ratio)',
      },
    });
    await endJob(aiClippingJob, aiClippingJob.refOf(record), done);
    return null;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export const Plan = /* @__PURE__ */ jobStep(aiClippingJob, 'Plan', plan);
export const Render = /* @__PURE__ */ jobStep(aiClippingJob, 'Render', render);
