/**
 * The lipsync job's one step (lipsync-job.ts), in the media container on AWS: the translation's Dub
 * with the caller's audio as the new speech (`engines/dub-render.ts` does the part they share).
 *
 * 1. The video is probed (not cut: the output is the whole video) and the part to re-dub is
 *    `start_time`..`end_time` (default all of it).
 * 2. The audio is fitted to that part: a shorter one is padded with silence (the original stays ducked
 *    under the whole part), a longer one is cut, unless `enable_dynamic_duration` (the default) and the
 *    part runs to the video's end, where the picture is played again from its start (looped) until the
 *    audio ends. The seconds cut are recorded (`audio_cut_seconds`).
 * 3. The mouth shapes: `speed` reads them from the audio's loudness (`visemesFromAudio`); `precision`
 *    from its words (`visemesFromWords`), heard by the speech recognition engine or known (the audio of a
 *    video made here), and falls back to the loudness when neither is there, saying so in `engines`.
 * 4. Lips, soundtrack (`disable_music_track` silences the original under the part only), mux,
 *    captions (`enable_caption`, from the words), outputs: `renderDub`.
 *
 * No face in the part re-dubbed: a `speed` lipsync completes with the audio replaced and
 * `engines.lips` saying no face was found; a `precision` one fails with `no_face` (refunded), since
 * what it was asked for, a mouth following the words, was not made.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { lipsyncCredits } from '../billing/plans.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { decodeMonoPcm16 } from '../engines/composition/audio-decode.js';
import { captionCuesFromWords } from '../engines/composition/captions.js';
import { CompositionError } from '../engines/composition/composition-engine.js';
import {
  fitAudioLength,
  loopPicture,
  prepareSource,
  silenceAudioSpan,
} from '../engines/composition/dubbing.js';
import { probeMedia } from '../engines/composition/probe.js';
import { describeLips, renderDub } from '../engines/dub-render.js';
import {
  type RecognizedWord,
  speechRecognitionConfigured,
  speechRecognitionEngine,
} from '../engines/recognition/index.js';
import { type VisemeCue, visemesFromAudio, visemesFromWords } from '../engines/speech/visemes.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { downloadMediaObject, putMediaObject } from '../media/media-store.js';
import { storedWords } from '../videos/source-transcript.js';
import { LIPSYNC_FAILURE, type LipsyncRef, lipsyncJob } from './lipsync-job.js';
import {
  completeLipsync,
  LIPSYNC_STATUS,
  type LipsyncRecord,
  lipsyncMediaKeys,
  updateRunningLipsync,
} from './lipsync-records.js';

const seconds = (ms: number) => `${Math.round(ms / 100) / 10}`;

/** Media the step cannot read is the caller's to fix: `invalid_media` with ffmpeg's reason. */
async function readable<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CompositionError && error.code === 'invalid_media')
      throw new JobFailure(LIPSYNC_FAILURE.invalidMedia, `The ${what} could not be used: ${error.message}.`, {
        cause: error,
      });
    throw error;
  }
}

interface Words {
  words: RecognizedWord[];
  /** For `engines`: who heard them. */
  source: string;
}

/** The words of the audio, on its own timeline (0 = the start of the part re-dubbed), when they can be had. */
async function wordsOf(
  record: LipsyncRecord,
  speechPath: string,
  speechMs: number,
  needed: boolean,
): Promise<Words | null> {
  const stored = record.audio.video_id
    ? await storedWords(record.workspace_id, record.audio.video_id, 0, speechMs)
    : undefined;
  if (stored) {
    return {
      words: stored.map((word) => ({
        word: word.word,
        startMs: word.startMs,
        endMs: Math.min(word.endMs, speechMs),
      })),
      source: `known words (video ${record.audio.video_id})`,
    };
  }
  if (!needed || !speechRecognitionConfigured()) return null;
  const key = await putWork(record, 'speech.wav', await readFile(speechPath), 'audio/wav');
  const engine = speechRecognitionEngine();
  // A SpeechRecognitionError is a JobFailure: the lipsync fails with its code and reason.
  const heard = await engine.recognize({
    media: { bucket: config().bucketName, key, mediaType: 'audio/wav' },
    runId: record.lipsync_id,
    workPrefix: lipsyncMediaKeys.work(record, ''),
  });
  return {
    words: heard.words.filter((word) => word.startMs < speechMs),
    source: `recognition (${engine.name}, ${heard.language})`,
  };
}

async function putWork(record: LipsyncRecord, name: string, body: Uint8Array, type: string) {
  const key = lipsyncMediaKeys.work(record, name);
  await putMediaObject(record.workspace_id, key, body, type);
  return key;
}

const shifted = <T extends { startMs: number; endMs: number }>(items: readonly T[], byMs: number): T[] =>
  items.map((item) => ({ ...item, startMs: item.startMs + byMs, endMs: item.endMs + byMs }));

async function lipsync(ref: LipsyncRef): Promise<null> {
  const record = await resumeJob(lipsyncJob, ref);
  if (!record) return null;
  const running = await updateRunningLipsync(record, { status: LIPSYNC_STATUS.running, progress: 5 });
  if (!running) return null;
  const { options } = record;
  const workDir = await mkdtemp(join(config().mediaWorkDir, `lipsync-${ref.lipsync_id}-`));
  try {
    const sourcePath = await downloadMediaObject(record.video.key, join(workDir, 'source'));
    const source = await readable('video', () => prepareSource(sourcePath, { workDir }));
    if (!source.videoPath) {
      throw new JobFailure(
        LIPSYNC_FAILURE.invalidMedia,
        'The video has no moving picture (it is audio only): there are no lips to re-animate.',
      );
    }
    const startMs = options.start_ms ?? 0;
    if (startMs >= source.durationMs) {
      throw new JobFailure(
        LIPSYNC_FAILURE.invalidMedia,
        `start_time (${startMs / 1000} s) is at or beyond the end of the video (${seconds(source.durationMs)} s).`,
      );
    }
    const endMs = Math.min(options.end_ms ?? source.durationMs, source.durationMs);
    const spanMs = endMs - startMs;
    const reachesEnd = endMs >= source.durationMs - 1000 / source.fps;

    const audioPath = await downloadMediaObject(record.audio.key, join(workDir, 'given-audio'));
    const audioInfo = await readable('audio', () => probeMedia(audioPath));
    if (!audioInfo.streams.some((stream) => stream.type === 'audio'))
      throw new JobFailure(LIPSYNC_FAILURE.invalidMedia, 'The audio has no sound to dub the video with.');
    const audioMs =
      (audioInfo.durationSeconds ||
        Math.max(0, ...audioInfo.streams.map((stream) => stream.durationSeconds ?? 0))) * 1000;

    const engines: Record<string, string> = {};
    let picture = source.videoPath;
    let outputMs = source.durationMs;
    let speechMs = spanMs;
    let audioCutMs = 0;
    if (audioMs > spanMs + 1) {
      if (options.enable_dynamic_duration && reachesEnd) {
        speechMs = audioMs;
        outputMs = startMs + audioMs;
        picture = (await loopPicture(picture, outputMs, { fps: source.fps, workDir })).path;
        engines.picture = `looped from ${seconds(source.durationMs)} s to ${seconds(outputMs)} s for the longer audio`;
      } else {
        audioCutMs = audioMs - spanMs;
        engines.audio = `cut: the audio is ${seconds(audioMs)} s, the part re-dubbed ${seconds(spanMs)} s (${
          options.enable_dynamic_duration
            ? 'end_time is before the end of the video'
            : 'enable_dynamic_duration is false'
        })`;
      }
    }
    const fitted = await readable('audio', () =>
      fitAudioLength(audioPath, speechMs, join(workDir, 'speech.wav')),
    );
    await updateRunningLipsync(record, {
      progress: 20,
      credits_due: Math.min(
        record.credits_reserved ?? 0,
        lipsyncCredits((outputMs - startMs) / 1000, options.mode),
      ),
    });

    const precision = options.mode === 'precision';
    const words = await wordsOf(record, fitted.path, speechMs, precision || options.enable_caption);
    let visemes: VisemeCue[];
    if (precision && words) {
      visemes = visemesFromWords(words.words, speechMs);
      engines.visemes = `words: ${words.source}`;
    } else {
      const samples = await decodeMonoPcm16(fitted.path, { sampleRate: 16_000 });
      visemes = visemesFromAudio(samples, 16_000);
      engines.visemes = precision
        ? 'audio level (precision asked, but no speech recognition engine is configured: made as speed)'
        : 'audio level';
    }
    const cues = words
      ? shifted(
          captionCuesFromWords(
            words.words.map(({ word, startMs: from, endMs: to }) => ({ word, startMs: from, endMs: to })),
            { untilMs: speechMs },
          ),
          startMs,
        )
      : [];
    if (words) engines.captions = words.source;
    await updateRunningLipsync(record, { progress: 35 });

    // disable_music_track: the original goes under the part re-dubbed only; outside it nothing changes.
    const original =
      source.audioPath && options.disable_music_track
        ? await silenceAudioSpan(
            source.audioPath,
            { startMs, endMs: startMs + speechMs },
            join(workDir, 'original-silenced.wav'),
          )
        : source.audioPath;
    const rendered = await renderDub({
      picturePath: picture,
      originalAudioPath: original,
      durationMs: outputMs,
      speech: [{ startMs, path: fitted.path }],
      lips: { visemes: shifted(visemes, startMs), spans: [{ startMs, endMs: startMs + speechMs }] },
      onLips: async (lips) => {
        if (lips.faces.framesWithFace > 0) return;
        if (precision) {
          throw new JobFailure(
            LIPSYNC_FAILURE.noFace,
            'No face was found in the part of the video to re-dub, so no lips could follow the words (precision). A speed lipsync replaces the audio of such a video anyway.',
          );
        }
      },
      onStage: (stage) => updateRunningLipsync(record, { progress: stage === 'lips' ? 75 : 85 }),
      removeOriginal: false,
      enhanceSpeech: options.enable_speech_enhancement,
      keepSameFormat: options.keep_the_same_format,
      fpsMode: options.fps_mode ?? 'cfr',
      source,
      cues,
      burnCaptions: options.enable_caption,
      workDir,
      store: async (path, name, type) => {
        const key = lipsyncMediaKeys.output(record, name);
        await putMediaObject(record.workspace_id, key, await readFile(path), type);
        return key;
      },
    });
    const lips = rendered.lips;
    engines.lips =
      lips && lips.faces.framesWithFace === 0
        ? `no face found in ${lips.faces.framesInSpans} frames: the audio was replaced, the picture kept as recorded`
        : lips
          ? describeLips(lips)
          : 'none';
    if (options.enable_speech_enhancement && rendered.soundtrack.speechLevel) {
      // The gain toward -16 LUFS stops where the true peak would pass -1.5 dBTP: say what it was.
      const level = rendered.soundtrack.speechLevel;
      engines.speech_enhancement = `high-pass, afftdn; speech at ${level.measuredLufs.toFixed(1)} LUFS, gain ${level.gainDb >= 0 ? '+' : ''}${level.gainDb.toFixed(1)} dB toward -16 LUFS (true peak at most -1.5 dBTP)`;
    }
    const done = await completeLipsync(record, {
      outputs: rendered.outputs,
      duration: Math.round(rendered.durationMs) / 1000,
      engines,
      audio_cut_seconds: Math.round(audioCutMs) / 1000,
    });
    await endJob(lipsyncJob, lipsyncJob.refOf(record), done);
    return null;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export const Lipsync = /* @__PURE__ */ jobStep(lipsyncJob, 'Lipsync', lipsync);
