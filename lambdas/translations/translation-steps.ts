/**
 * The video translation job's steps (video-translation-job.ts): Prepare and Dub, in the media
 * container on AWS. Each step reads what the one before it stored under the translation's work prefix,
 * so a step that runs again (a retry, a restarted workflow) starts from the same files.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { translationCredits } from '../billing/plans.js';
import { availableStockVoices, engineVoiceOf, findStockVoice } from '../catalog/stock-voices.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { decodeMonoPcm16 } from '../engines/composition/audio-decode.js';
import { captionCuesFromWords, wordsWithPunctuation } from '../engines/composition/captions.js';
import type { CaptionCue } from '../engines/composition/composition-engine.js';
import {
  type PreparedSource,
  prepareSource,
  retimeAudio,
  retimeVideo,
} from '../engines/composition/dubbing.js';
import { formatSrt, parseSubtitles } from '../engines/composition/subtitle-files.js';
import { describeLips, renderDub } from '../engines/dub-render.js';
import { speechEngine } from '../engines/speech/index.js';
import type { Pronunciation, SynthesisResult } from '../engines/speech/speech-engine.js';
import { isSpeechEngineError } from '../engines/speech/speech-engine.js';
import { type VisemeCue, visemesFromAudio } from '../engines/speech/visemes.js';
import { primaryLanguage, translationEngine } from '../engines/translation/index.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { downloadMediaObject, putMediaObject, readMediaObject } from '../media/media-store.js';
import { sourceWords, videoLanguage } from '../videos/source-transcript.js';
import { voiceAnalyser } from '../voices/voice-analysers.js';
import { catalogVoicesOfLanguage, deriveVoice, VoiceDerivationError } from '../voices/voice-analysis.js';
import { type DubPlan, planDub, retimesPicture, segmentsFromWords, type TimedText } from './dub-plan.js';
import { languageOfTag } from './translation-languages.js';
import {
  completeProofread,
  completeTranslation,
  getTranslation,
  TRANSCRIPT_SOURCES,
  TRANSLATION_STATUS,
  type TranscriptSource,
  translationMediaKeys,
  updateRunningTranslation,
  type VideoTranslationRecord,
} from './translation-records.js';
import { TRANSLATION_FAILURE, type TranslationRef, videoTranslationJob } from './video-translation-job.js';

/** What Prepare hands Dub (`work/prepared.json`). */
interface PreparedTranslation {
  /** The source's length after the cut. */
  source_ms: number;
  has_video: boolean;
  /** The cut picture (a work file), or the source itself when nothing was cut. */
  picture_key: string | null;
  /** The cut's original soundtrack (a work WAV), null without audio. */
  original_audio_key: string | null;
  fps: number;
  codecs: PreparedSource['codecs'];
  audio_channels: number;
  audio_sample_rate: number;
  /** The segments: original text (null for given output subtitles) and the text to speak. */
  segments: (TimedText & { source: string | null })[];
}

async function putWork(
  record: VideoTranslationRecord,
  name: string,
  body: Uint8Array | string,
  type: string,
) {
  const key = translationMediaKeys.work(record, name);
  await putMediaObject(record.workspace_id, key, typeof body === 'string' ? Buffer.from(body) : body, type);
  return key;
}

/** Cues inside the cut, moved to its timeline. */
function cuesInCut(cues: readonly CaptionCue[], startMs: number, durationMs: number): TimedText[] {
  return cues
    .filter((cue) => cue.endMs > startMs && cue.startMs < startMs + durationMs)
    .map((cue) => ({
      text: cue.text.replace(/\n/g, ' '),
      startMs: Math.max(0, cue.startMs - startMs),
      endMs: Math.min(durationMs, cue.endMs - startMs),
    }));
}

interface Transcript {
  source: TranscriptSource;
  language: string | null;
  segments: TimedText[];
  engine: string | null;
}

async function readTranscript(
  record: VideoTranslationRecord,
  prepared: PreparedSource,
  audioKey: string | null,
): Promise<Transcript> {
  if (record.srt_key) {
    const { cues } = parseSubtitles(await readMediaObject(record.srt_key));
    return {
      source:
        record.options.srt_role === 'output'
          ? TRANSCRIPT_SOURCES.outputSubtitles
          : TRANSCRIPT_SOURCES.inputSubtitles,
      language:
        record.input_language_tag ??
        (record.source.video_id
          ? ((await videoLanguage(record.workspace_id, record.source.video_id)) ?? null)
          : null),
      segments: cuesInCut(cues, prepared.startMs, prepared.durationMs),
      engine: null,
    };
  }
  const heard = await sourceWords({
    workspaceId: record.workspace_id,
    videoId: record.source.video_id,
    mediaKey: record.source.key,
    audioKey,
    language: record.input_language_tag,
    startMs: prepared.startMs,
    durationMs: prepared.durationMs,
    runId: record.video_translation_id,
    workPrefix: translationMediaKeys.work(record, ''),
  });
  return {
    source: heard.source,
    language: heard.language,
    segments: segmentsFromWords(heard.words),
    engine: heard.engine,
  };
}

async function translateSegments(
  record: VideoTranslationRecord,
  segments: readonly TimedText[],
  sourceLanguage: string,
): Promise<{ texts: string[]; engine: string | null }> {
  // Another variety of the same language (en-US into en-GB) is spoken again, not translated.
  if (primaryLanguage(sourceLanguage) === primaryLanguage(record.output_language_tag)) {
    return { texts: segments.map((segment) => segment.text), engine: null };
  }
  const glossary = record.glossary;
  const engine = translationEngine();
  const result = await engine.translate({
    segments: segments.map((segment) => segment.text),
    sourceLanguage,
    targetLanguage: record.output_language_tag,
    ...(glossary
      ? {
          glossary: {
            doNotTranslate: glossary.do_not_translate_terms.map(({ term }) => term),
            terms: glossary.forced_translations.map(({ term, translation }) => ({
              source: term,
              target: translation,
            })),
          },
        }
      : {}),
  });
  return { texts: result.segments, engine: result.engine };
}

async function prepare(ref: TranslationRef): Promise<null> {
  const record = await resumeJob(videoTranslationJob, ref);
  if (!record) return null;
  const running = await updateRunningTranslation(record, { status: TRANSLATION_STATUS.running, progress: 5 });
  if (!running) return null;
  if (record.prepared_from) return prepareFromProofread(record, record.prepared_from);
  const workDir = await mkdtemp(join(config().mediaWorkDir, `translation-${ref.video_translation_id}-`));
  try {
    const source = await downloadMediaObject(record.source.key, join(workDir, 'source'));
    const cut = await prepareSource(source, {
      workDir,
      ...(record.options.start_ms !== null ? { startMs: record.options.start_ms } : {}),
      ...(record.options.end_ms !== null ? { endMs: record.options.end_ms } : {}),
    });
    const creditsDue = Math.min(
      record.credits_reserved ?? 0,
      translationCredits(cut.durationMs / 1000, record.options.mode),
    );
    const originalKey = cut.audioPath
      ? await putWork(record, 'original.wav', await readFile(cut.audioPath), 'audio/wav')
      : null;
    const pictureKey = !cut.hasVideo
      ? null
      : cut.cut
        ? await putWork(record, 'picture.mp4', await readFile(cut.videoPath as string), 'video/mp4')
        : record.source.key;
    await updateRunningTranslation(record, { progress: 15, credits_due: creditsDue });

    const transcript = await readTranscript(record, cut, originalKey);
    if (transcript.segments.length === 0) {
      throw new JobFailure(
        TRANSLATION_FAILURE.noSpeech,
        transcript.source === TRANSCRIPT_SOURCES.recognition
          ? 'No speech was heard in the video (or in its start_time–end_time part): there is nothing to translate.'
          : 'The subtitles have no cue inside the video (or its start_time–end_time part): there is nothing to translate.',
      );
    }
    const sourceTag = transcript.language ?? record.input_language_tag;
    let texts = transcript.segments.map((segment) => segment.text);
    let translationEngineName: string | null = null;
    if (transcript.source !== TRANSCRIPT_SOURCES.outputSubtitles) {
      if (!sourceTag) {
        throw new JobFailure(
          TRANSLATION_FAILURE.invalidSubtitles,
          'The language of the subtitles is not known: give input_language.',
        );
      }
      const translated = await translateSegments(record, transcript.segments, sourceTag);
      texts = translated.texts;
      translationEngineName = translated.engine;
    }
    const prepared: PreparedTranslation = {
      source_ms: cut.durationMs,
      has_video: cut.hasVideo,
      picture_key: pictureKey,
      original_audio_key: originalKey,
      fps: cut.fps,
      codecs: cut.codecs,
      audio_channels: cut.audioChannels,
      audio_sample_rate: cut.audioSampleRate,
      segments: transcript.segments.map((segment, index) => ({
        ...segment,
        source: transcript.source === TRANSCRIPT_SOURCES.outputSubtitles ? null : segment.text,
        text: texts[index] ?? '',
      })),
    };
    await putWork(record, 'prepared.json', JSON.stringify(prepared), 'application/json');
    const inputLanguage = sourceTag ? languageOfTag(sourceTag) : null;
    await updateRunningTranslation(record, {
      progress: 40,
      transcript_source: transcript.source,
      input_language: record.input_language ?? inputLanguage?.name ?? null,
      input_language_tag: record.input_language_tag ?? inputLanguage?.tag ?? null,
      engines: {
        ...record.engines,
        ...(transcript.engine ? { recognition: transcript.engine } : {}),
        ...(translationEngineName ? { translation: translationEngineName } : {}),
      },
    });
    return null;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** A translation generated from a proofread: its words are the proofread's, as reviewed and edited. */
async function prepareFromProofread(record: VideoTranslationRecord, proofreadId: string): Promise<null> {
  const proofread = await getTranslation(record.workspace_id, proofreadId, true);
  const prepared = proofread?.proofread_outputs
    ? await readMediaObject(
        translationMediaKeys.work(
          { workspace_id: record.workspace_id, video_translation_id: proofreadId },
          'prepared.json',
        ),
      ).catch(() => undefined)
    : undefined;
  if (!proofread || !prepared) {
    throw new JobFailure(
      TRANSLATION_FAILURE.invalidMedia,
      `The proofread ${proofreadId} this translation is made from is gone.`,
    );
  }
  await putWork(record, 'prepared.json', prepared, 'application/json');
  await updateRunningTranslation(record, {
    progress: 40,
    transcript_source: proofread.transcript_source,
    input_language: proofread.input_language,
    input_language_tag: proofread.input_language_tag,
    engines: proofread.engines,
    credits_due: Math.min(
      record.credits_reserved ?? 0,
      translationCredits(
        (JSON.parse(prepared.toString('utf8')) as PreparedTranslation).source_ms / 1000,
        record.options.mode,
      ),
    ),
  });
  return null;
}

// ---------------------------------------------------------------------------------------------
// Dub

/** A proofread stops here: its subtitles, translated and original, are stored for review. */
async function finishProofread(record: VideoTranslationRecord, prepared: PreparedTranslation): Promise<null> {
  const translated = prepared.segments.map(({ text, startMs, endMs }) => ({ text, startMs, endMs }));
  const original = prepared.segments.map(({ source, text, startMs, endMs }) => ({
    text: source ?? text,
    startMs,
    endMs,
  }));
  const srtKey = translationMediaKeys.output(record, 'proofread.srt');
  const originalKey = translationMediaKeys.output(record, 'original.srt');
  await putMediaObject(
    record.workspace_id,
    srtKey,
    Buffer.from(formatSrt(translated)),
    'application/x-subrip',
  );
  await putMediaObject(
    record.workspace_id,
    originalKey,
    Buffer.from(formatSrt(original)),
    'application/x-subrip',
  );
  const done = await completeProofread(record, { srt_key: srtKey, original_srt_key: originalKey });
  await endJob(videoTranslationJob, videoTranslationJob.refOf(record), done);
  return null;
}

interface SpeakingVoice {
  engineVoiceId: string;
  speed: number;
  pitch: number;
  /** For the record: how the voice was chosen. */
  description: string;
}

/** The voice the lines are spoken with: chosen stock voices, else one derived from the speaker. */
async function speakingVoice(
  record: VideoTranslationRecord,
  originalAudio: string | null,
  workDir: string,
): Promise<SpeakingVoice> {
  const engine = speechEngine();
  for (const voiceId of record.options.stock_voice_ids ?? []) {
    const stock = findStockVoice(voiceId);
    const engineVoiceId = stock ? engineVoiceOf(stock, engine.name) : undefined;
    if (
      stock &&
      engineVoiceId &&
      primaryLanguage(stock.language) === primaryLanguage(record.output_language_tag)
    )
      return { engineVoiceId, speed: 1, pitch: 0, description: `stock ${voiceId}` };
  }
  if (originalAudio) {
    const analysis = await voiceAnalyser().analyse(originalAudio, { workDir, denoise: true });
    if (analysis.usable) {
      try {
        const derived = deriveVoice(analysis, { language: record.output_language_tag, engine: engine.name });
        return {
          engineVoiceId: derived.engineVoiceId,
          speed: derived.speed,
          pitch: derived.pitch,
          description: `derived from the speaker (${derived.engineVoiceId}, ${derived.gender}, ${Math.round(derived.expectedPitchHz)} Hz)`,
        };
      } catch (error) {
        if (!(error instanceof VoiceDerivationError)) throw error;
      }
    }
  }
  // Nothing to measure (no speech, a silent or music-only soundtrack): the language's first voice.
  const available = new Set(availableStockVoices(engine.name));
  const fallback = catalogVoicesOfLanguage(record.output_language_tag).find((voice) => available.has(voice));
  const engineVoiceId = fallback ? engineVoiceOf(fallback, engine.name) : undefined;
  if (!fallback || !engineVoiceId) {
    throw new JobFailure(
      TRANSLATION_FAILURE.engineUnavailable,
      `The ${engine.name} speech engine has no voice of ${record.output_language}.`,
    );
  }
  return {
    engineVoiceId,
    speed: 1,
    pitch: 0,
    description: `stock ${fallback.voiceId} (the speaker could not be measured)`,
  };
}

async function speak(
  text: string,
  voice: SpeakingVoice,
  speed: number,
  pronunciations: readonly Pronunciation[],
): Promise<SynthesisResult> {
  try {
    return await speechEngine().synthesize({
      text,
      voiceId: voice.engineVoiceId,
      speed: Math.min(2, Math.max(0.5, voice.speed * speed)),
      pitch: voice.pitch,
      pronunciations,
    });
  } catch (error) {
    if (isSpeechEngineError(error)) {
      throw new JobFailure(error.failureCode, `A line could not be spoken: ${error.message}`, {
        cause: error,
      });
    }
    throw error;
  }
}

interface SpokenLines {
  plan: DubPlan;
  clips: { startMs: number; path: string }[];
  visemes: VisemeCue[];
  cues: CaptionCue[];
}

/** Every line spoken at the speed its slot needs, placed on the output timeline. */
async function speakLines(
  record: VideoTranslationRecord,
  prepared: PreparedTranslation,
  voice: SpeakingVoice,
  workDir: string,
): Promise<SpokenLines> {
  const pronunciations = record.glossary?.terms ?? [];
  const natural: SynthesisResult[] = [];
  for (const segment of prepared.segments) natural.push(await speak(segment.text, voice, 1, pronunciations));
  const plan = planDub(
    prepared.segments,
    natural.map((result) => result.durationMs),
    { dynamicDuration: record.options.enable_dynamic_duration, sourceMs: prepared.source_ms },
  );
  const clips: SpokenLines['clips'] = [];
  const visemes: VisemeCue[] = [];
  const cues: CaptionCue[] = [];
  for (const line of plan.lines) {
    const segment = prepared.segments[line.segment] as TimedText;
    const spoken =
      line.speed === 1
        ? (natural[line.segment] as SynthesisResult)
        : await speak(segment.text, voice, line.speed, pronunciations);
    const path = join(workDir, `line-${line.segment}.wav`);
    await writeFile(path, spoken.audio);
    clips.push({ startMs: line.startMs, path });
    const previousEnd = visemes.at(-1)?.endMs ?? 0;
    if (line.startMs > previousEnd)
      visemes.push({ viseme: 'rest', startMs: previousEnd, endMs: line.startMs });
    for (const cue of spoken.visemes) {
      const startMs = Math.max(cue.startMs + line.startMs, visemes.at(-1)?.endMs ?? 0);
      const endMs = cue.endMs + line.startMs;
      if (endMs > startMs) visemes.push({ viseme: cue.viseme, startMs, endMs });
    }
    for (const cue of captionCuesFromWords(
      wordsWithPunctuation(segment.text, spoken.words, spoken.durationMs),
      {
        untilMs: spoken.durationMs,
      },
    )) {
      cues.push({ ...cue, startMs: cue.startMs + line.startMs, endMs: cue.endMs + line.startMs });
    }
  }
  return { plan, clips, visemes, cues };
}

async function dub(ref: TranslationRef): Promise<null> {
  const record = await resumeJob(videoTranslationJob, ref);
  if (!record) return null;
  const workDir = await mkdtemp(join(config().mediaWorkDir, `translation-${ref.video_translation_id}-`));
  try {
    const prepared = JSON.parse(
      (await readMediaObject(translationMediaKeys.work(record, 'prepared.json'))).toString('utf8'),
    ) as PreparedTranslation;
    if (record.proofread) return await finishProofread(record, prepared);
    const original = prepared.original_audio_key
      ? await downloadMediaObject(prepared.original_audio_key, join(workDir, 'original.wav'))
      : null;
    const picture = prepared.picture_key
      ? await downloadMediaObject(prepared.picture_key, join(workDir, 'picture'))
      : null;

    let soundtrackSpeech: { startMs: number; path: string }[];
    let plan: DubPlan;
    let visemes: VisemeCue[] = [];
    let cues: CaptionCue[] = [];
    let voiceDescription: string;
    if (record.audio_key) {
      // Dubbing audio of the caller's: it is the new speech, from the start; nothing is synthesized.
      const given = await downloadMediaObject(record.audio_key, join(workDir, 'given-audio'));
      soundtrackSpeech = [{ startMs: 0, path: given }];
      plan = planDub([], [], { dynamicDuration: false, sourceMs: prepared.source_ms });
      cues = prepared.segments.map((segment) => ({
        text: segment.text,
        startMs: segment.startMs,
        endMs: segment.endMs,
      }));
      voiceDescription = 'given audio';
    } else {
      const voice = await speakingVoice(record, original, workDir);
      const spoken = await speakLines(record, prepared, voice, workDir);
      soundtrackSpeech = spoken.clips;
      plan = spoken.plan;
      visemes = spoken.visemes;
      cues = spoken.cues;
      voiceDescription = voice.description;
    }
    await updateRunningTranslation(record, { progress: 60 });

    // The picture and the original sound, slowed where a line needs more time (enable_dynamic_duration).
    let pictureForMux = picture;
    let originalForMix = original;
    if (picture && retimesPicture(plan)) {
      pictureForMux = (await retimeVideo(picture, plan.pictureSpans, { fps: prepared.fps, workDir })).path;
      if (original) originalForMix = (await retimeAudio(original, plan.pictureSpans, { workDir })).path;
    }
    // The lips follow the new speech, unless only the audio is translated.
    const reanimate = pictureForMux !== null && !record.options.translate_audio_only;
    if (reanimate && record.audio_key && soundtrackSpeech[0]) {
      const samples = await decodeMonoPcm16(soundtrackSpeech[0].path, { sampleRate: 16_000 });
      visemes = visemesFromAudio(samples, 16_000);
    }
    const rendered = await renderDub({
      picturePath: pictureForMux,
      originalAudioPath: originalForMix,
      durationMs: plan.outputMs,
      speech: soundtrackSpeech,
      lips: reanimate
        ? {
            visemes,
            // Given audio: its loudness drives the mouth over the whole video; else only where lines are said.
            spans: record.audio_key
              ? undefined
              : plan.lines.map((line) => ({ startMs: line.startMs, endMs: line.startMs + line.durationMs })),
          }
        : null,
      onStage: (stage) => updateRunningTranslation(record, { progress: stage === 'lips' ? 70 : 75 }),
      removeOriginal: record.options.disable_music_track,
      enhanceSpeech: record.options.enable_speech_enhancement,
      keepSameFormat: record.options.keep_the_same_format,
      fpsMode: record.options.fps_mode ?? 'cfr',
      source: {
        codecs: prepared.codecs,
        fps: prepared.fps,
        audioChannels: prepared.audio_channels,
        audioSampleRate: prepared.audio_sample_rate,
      },
      cues,
      burnCaptions: record.options.enable_caption,
      workDir,
      store: async (path, name, type) => {
        const key = translationMediaKeys.output(record, name);
        await putMediaObject(record.workspace_id, key, await readFile(path), type);
        return key;
      },
    });
    const engines = {
      ...record.engines,
      speech: speechEngine().name,
      voice: voiceDescription,
      lips: rendered.lips ? describeLips(rendered.lips) : 'none (translate_audio_only)',
    };
    const done = await completeTranslation(
      record,
      rendered.outputs,
      Math.round(rendered.durationMs) / 1000,
      engines,
    );
    await endJob(videoTranslationJob, videoTranslationJob.refOf(record), done);
    return null;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export const Prepare = /* @__PURE__ */ jobStep(videoTranslationJob, 'Prepare', prepare);
export const Dub = /* @__PURE__ */ jobStep(videoTranslationJob, 'Dub', dub);
