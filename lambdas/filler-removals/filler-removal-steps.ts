/**
 * The filler-word removal job's step (filler-removal-job.ts): Clean, in the media container on AWS.
 *
 * 1. The source is probed and its soundtrack extracted (prepareSource).
 * 2. Its words: a video this service made has them stored (the `known_transcript` engine reads them);
 *    anything else is heard by the configured speech recognition engine. With none configured
 *    (`engine_unavailable`) only silences are cut, and the record's `engines.recognition` says so.
 * 3. Its silences: the soundtrack's 10 ms windows below `SILENCE_DBFS`, decoded as PCM.
 * 4. The cuts (cut-plan.ts) on the picture's frame grid; the picture and the sound cut in one ffmpeg
 *    run with crossfaded sound joins (media-cuts.ts), muxed as MP4.
 * Nothing to cut: the output is a byte copy of the source and nothing is charged.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fillerRemovalCredits } from '../billing/plans.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { decodeMonoPcm16 } from '../engines/composition/audio-decode.js';
import { CompositionError } from '../engines/composition/composition-engine.js';
import { muxContainer, muxDub, type PreparedSource, prepareSource } from '../engines/composition/dubbing.js';
import { cutMedia, extractFrame } from '../engines/composition/media-cuts.js';
import {
  RECOGNITION_FAILURE_CODES,
  type RecognizedWord,
  SpeechRecognitionError,
} from '../engines/recognition/index.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { copyMediaObject, downloadMediaObject, putMediaObject } from '../media/media-store.js';
import { sourceWords } from '../videos/source-transcript.js';
import { type CutPlan, type FillerSpan, findSilences, planCuts } from './cut-plan.js';
import { disfluencyRules, markDisfluencies } from './disfluency.js';
import { FILLER_REMOVAL_FAILURE, type FillerRemovalRef, fillerRemovalJob } from './filler-removal-job.js';
import {
  completeFillerRemoval,
  FILLER_REMOVAL_STATUS,
  type FillerRemovalRecord,
  fillerRemovalMediaKeys,
  updateRunningFillerRemoval,
} from './filler-removal-records.js';
import { fillerVocabulary, fillerWordIndexes } from './filler-words.js';

/** How the job cuts; the README ("Filler-word removal") documents each. */
export const FILLER_REMOVAL_DEFAULTS = {
  /** A 10 ms window quieter than this (RMS, dBFS) is silent. */
  silenceDbfs: -40,
  /** What is left of a long silence: half after the sound before it, half before the sound after it. */
  silenceKeptMs: 300,
  /** Each join of the sound is crossfaded over this long. */
  crossfadeMs: 10,
  /** The cut grid of a source without pictures (10 ms). */
  audioOnlyGridFps: 100,
  /** Samples per second the silence detection reads. */
  analysisSampleRate: 16_000,
} as const;

interface HeardWords {
  words: RecognizedWord[];
  language: string | null;
  /** What `engines.recognition` says. */
  engine: string;
}

/** The source's words: stored for a video made here, else heard; none (said why) without an engine. */
async function wordsOf(record: FillerRemovalRecord, prepared: PreparedSource): Promise<HeardWords> {
  const language = record.options.language;
  const soundKey = fillerRemovalMediaKeys.work(record, 'sound.wav');
  await putMediaObject(
    record.workspace_id,
    soundKey,
    await readFile(prepared.audioPath as string),
    'audio/wav',
  );
  try {
    const heard = await sourceWords({
      workspaceId: record.workspace_id,
      videoId: record.source.video_id,
      mediaKey: record.source.key,
      audioKey: soundKey,
      language,
      startMs: 0,
      durationMs: prepared.durationMs,
      runId: record.filler_word_removal_id,
      workPrefix: fillerRemovalMediaKeys.work(record, ''),
    });
    return { words: heard.words, language: heard.language ?? language, engine: heard.engine ?? 'none' };
  } catch (error) {
    // Without recognition the silences can still be cut: the job says what it could not do.
    if (
      error instanceof SpeechRecognitionError &&
      error.failureCode === RECOGNITION_FAILURE_CODES.engineUnavailable
    ) {
      return {
        words: [],
        language,
        engine: `none: no filler words were cut, only silences. ${error.message}`,
      };
    }
    throw error;
  }
}

/** The cuts of a source with sound. */
async function planOf(record: FillerRemovalRecord, prepared: PreparedSource, heard: HeardWords, fps: number) {
  const vocabulary = fillerVocabulary(heard.language, record.options.filler_words);
  const words = markDisfluencies(heard.words, heard.language, vocabulary.always);
  const fillerIndexes = fillerWordIndexes(words, vocabulary);
  const isFiller = new Set(fillerIndexes);
  // The words beside each filler that stay: a cut may reach out to whole frames up to them, not into them.
  const keptBeside = (from: number, step: -1 | 1) => {
    let index = from + step;
    while (isFiller.has(index)) index += step;
    return words[index];
  };
  const fillers = fillerIndexes.map((index): FillerSpan => {
    const word = words[index] as RecognizedWord;
    const before = keptBeside(index, -1);
    const after = keptBeside(index, 1);
    return {
      startMs: word.startMs,
      endMs: word.endMs,
      ...(before ? { notBeforeMs: before.endMs } : {}),
      ...(after ? { notAfterMs: after.startMs } : {}),
    };
  });
  const samples = await decodeMonoPcm16(prepared.audioPath as string, {
    sampleRate: FILLER_REMOVAL_DEFAULTS.analysisSampleRate,
  });
  const silences = findSilences(samples, FILLER_REMOVAL_DEFAULTS.analysisSampleRate, {
    thresholdDb: FILLER_REMOVAL_DEFAULTS.silenceDbfs,
    minMs: record.options.silence_threshold_ms,
  });
  return planCuts({
    fps,
    totalFrames: Math.round((prepared.durationMs * fps) / 1000),
    fillers,
    silences,
    silenceThresholdMs: record.options.silence_threshold_ms,
    silenceKeptMs: FILLER_REMOVAL_DEFAULTS.silenceKeptMs,
  });
}

const VIDEO_CONTENT_TYPES = { mp4: 'video/mp4', webm: 'video/webm', mkv: 'video/x-matroska' } as const;
/** Sound-only files kept as they are, by ffmpeg's container name. */
const AUDIO_FILES: Readonly<Record<string, { extension: string; type: string }>> = {
  wav: { extension: 'wav', type: 'audio/wav' },
  mp3: { extension: 'mp3', type: 'audio/mpeg' },
  ogg: { extension: 'ogg', type: 'audio/ogg' },
  flac: { extension: 'flac', type: 'audio/flac' },
};

/** The name and type of the source's byte copy (an unchanged output). */
function unchangedOutput(prepared: PreparedSource): { name: string; type: string } {
  const audio = prepared.hasVideo ? undefined : AUDIO_FILES[prepared.codecs.container.split(',')[0] ?? ''];
  if (audio) return { name: `audio.${audio.extension}`, type: audio.type };
  const container = muxContainer('same', true, prepared);
  return prepared.hasVideo
    ? { name: `video.${container}`, type: VIDEO_CONTENT_TYPES[container] }
    : {
        name: `audio.${container === 'mp4' ? 'm4a' : container}`,
        type: `audio/${container === 'mkv' ? 'x-matroska' : container}`,
      };
}

async function clean(ref: FillerRemovalRef): Promise<null> {
  const record = await resumeJob(fillerRemovalJob, ref);
  if (!record) return null;
  const running = await updateRunningFillerRemoval(record, {
    status: FILLER_REMOVAL_STATUS.running,
    progress: 5,
  });
  if (!running) return null;
  const workDir = await mkdtemp(join(config().mediaWorkDir, `filler-${ref.filler_word_removal_id}-`));
  try {
    const source = await downloadMediaObject(record.source.key, join(workDir, 'source'));
    const prepared = await readableSource(source, workDir);
    const fps = prepared.hasVideo ? prepared.fps : FILLER_REMOVAL_DEFAULTS.audioOnlyGridFps;
    const minutesDue = Math.min(
      record.credits_reserved ?? 0,
      fillerRemovalCredits(prepared.durationMs / 1000),
    );
    await updateRunningFillerRemoval(record, { progress: 15, credits_due: minutesDue });

    const engines: Record<string, string> = {};
    let plan: CutPlan | null = null;
    if (prepared.audioPath) {
      const heard = await wordsOf(record, prepared);
      engines.recognition = heard.engine;
      if (heard.words.length > 0) engines.disfluency = disfluencyRules(heard.language);
      engines.silence_detection = `pcm_rms (${FILLER_REMOVAL_DEFAULTS.silenceDbfs} dBFS, 10 ms windows, longer than ${record.options.silence_threshold_ms} ms)`;
      await updateRunningFillerRemoval(record, { progress: 35 });
      plan = await planOf(record, prepared, heard, fps);
    } else {
      engines.recognition = 'none: the source has no sound, so it has no filler words or silences';
    }
    await updateRunningFillerRemoval(record, { progress: 50 });
    const originalDuration = Math.round(prepared.durationMs) / 1000;

    if (!plan || plan.cuts.length === 0) {
      // Nothing to cut: the source as it is, and nothing charged.
      const unchanged = unchangedOutput(prepared);
      const videoKey = fillerRemovalMediaKeys.output(record, unchanged.name);
      await copyMediaObject(record.workspace_id, record.source.key, videoKey, unchanged.type);
      const thumbnailKey = prepared.hasVideo ? await storeThumbnail(record, source, workDir) : null;
      const done = await completeFillerRemoval(record, {
        outputs: { video_key: videoKey, thumbnail_key: thumbnailKey },
        result: {
          num_cuts: 0,
          original_duration: originalDuration,
          output_duration: originalDuration,
          reduction_pct: 0,
        },
        engines: { ...engines, cutting: 'none (nothing to cut: the output is the source, byte for byte)' },
        creditsDue: 0,
      });
      await endJob(fillerRemovalJob, fillerRemovalJob.refOf(record), done);
      return null;
    }
    if (plan.keptFrames === 0) {
      throw new JobFailure(
        FILLER_REMOVAL_FAILURE.nothingLeft,
        'The whole video is filler words and long silences: nothing would be left after the cuts. Nothing was charged.',
      );
    }

    const cut = await cutMedia({
      videoPath: prepared.videoPath,
      audioPath: prepared.audioPath,
      fps,
      kept: plan.kept,
      crossfadeMs: FILLER_REMOVAL_DEFAULTS.crossfadeMs,
      workDir,
    });
    await updateRunningFillerRemoval(record, { progress: 80 });
    const muxed = await muxDub({
      videoPath: cut.videoPath,
      audioPath: cut.audioPath as string,
      outPath: join(workDir, 'cleaned.mp4'),
      format: 'mp4',
      // The cut picture is already constant-rate H.264: copied as it is.
      fpsMode: 'vfr',
      keepSameFormat: false,
      sourceInfo: prepared,
    });
    // An MP4 either way; a source without pictures gives one with sound only (an M4A).
    const [name, type] = cut.videoPath ? ['video.mp4', 'video/mp4'] : ['audio.m4a', 'audio/mp4'];
    const videoKey = fillerRemovalMediaKeys.output(record, name);
    await putMediaObject(record.workspace_id, videoKey, await readFile(muxed.path), type);
    const thumbnailKey = cut.videoPath ? await storeThumbnail(record, muxed.path, workDir) : null;
    const outputDuration = Math.round((plan.keptFrames * 1000) / fps) / 1000;
    const done = await completeFillerRemoval(record, {
      outputs: { video_key: videoKey, thumbnail_key: thumbnailKey },
      result: {
        num_cuts: plan.fillerCuts,
        original_duration: originalDuration,
        output_duration: outputDuration,
        reduction_pct: Math.round(((originalDuration - outputDuration) / originalDuration) * 1000) / 10,
      },
      engines: {
        ...engines,
        cutting: `ffmpeg (${plan.cuts.length} cuts on frame boundaries at ${Math.round(fps * 100) / 100} fps, ${FILLER_REMOVAL_DEFAULTS.crossfadeMs} ms sound crossfades)`,
      },
      creditsDue: minutesDue,
    });
    await endJob(fillerRemovalJob, fillerRemovalJob.refOf(record), done);
    return null;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The source probed and its sound extracted; an unreadable one fails saying why, without the work paths. */
async function readableSource(source: string, workDir: string): Promise<PreparedSource> {
  try {
    return await prepareSource(source, { workDir });
  } catch (error) {
    if (!(error instanceof CompositionError) || error.failureCode !== 'invalid_media') throw error;
    const reason = error.message
      .replaceAll(`file:${source}: `, '')
      .replaceAll(`cannot read ${source}: `, '')
      .replaceAll(source, 'the file')
      .replace(/ to translate$/, '');
    throw new JobFailure(
      FILLER_REMOVAL_FAILURE.invalidMedia,
      `The video could not be read: ${reason}. Send a video or audio file (MP4, MOV, WebM, MP3, WAV, …); its credits were returned.`,
      { cause: error },
    );
  }
}

async function storeThumbnail(
  record: FillerRemovalRecord,
  videoPath: string,
  workDir: string,
): Promise<string> {
  const frame = await extractFrame(videoPath, 0, join(workDir, 'thumbnail.jpg'));
  const key = fillerRemovalMediaKeys.output(record, 'thumbnail.jpg');
  await putMediaObject(record.workspace_id, key, await readFile(frame), 'image/jpeg');
  return key;
}

export const Clean = /* @__PURE__ */ jobStep(fillerRemovalJob, 'Clean', clean);
