/**
 * The source of a media job (translations, lipsyncs, filler-word removals, AI clipping, background
 * removals): its admission (`admitJobSource`: a video this service made is recognised by its URL and
 * read where it is; anything else is resolved and stored) and its words (`sourceWords`: a video made here
 * has the words its render stored, `transcript.json` with word timings, read through `known_transcript`
 * so nothing is heard again; any other source is heard by the configured speech recognition engine).
 */
import {
  type MediaInput,
  type MediaInputOptions,
  type ResolvedMedia,
  resolveMediaInput,
} from '../assets/media-inputs.js';
import { estimatedSourceSeconds } from '../billing/plans.js';
import { findStockVoice } from '../catalog/stock-voices.js';
import { config } from '../core/config.js';
import { type RecognizedWord, recognitionEngineFor } from '../engines/recognition/index.js';
import { deleteMediaObject, readMediaObject } from '../media/media-store.js';
import { resolveVoice } from '../voices/voice-resolution.js';
import { getVideo, type TranscriptWord } from './videos.js';

/** A source that is the output of a video of the workspace, its object, and its length. */
export interface VideoMadeHere {
  key: string;
  video_id: string;
  duration_seconds: number;
  title: string | null;
}

const MADE_HERE_PATH = /\/workspaces\/([^/]+)\/videos\/([0-9a-f]{32})\/([^/]+)$/;

/** The video of this workspace a URL (as the API gave it) is an output of, and its object. */
export async function videoMadeHere(
  workspaceId: string,
  input: MediaInput,
): Promise<VideoMadeHere | undefined> {
  if (input.type !== 'url' || !URL.canParse(input.url)) return undefined;
  const match = MADE_HERE_PATH.exec(decodeURIComponent(new URL(input.url).pathname));
  if (!match || match[1] !== workspaceId) return undefined;
  const video = await getVideo(workspaceId, match[2] as string);
  const key = [video?.outputs?.video_key, video?.outputs?.captioned_video_key].find(
    (candidate) => candidate?.endsWith(`/${match[3]}`) && candidate.includes(`/videos/${match[2]}/`),
  );
  if (!video || !key) return undefined;
  return { key, video_id: video.video_id, duration_seconds: video.duration ?? 0, title: video.title };
}

/** The source of a media job (translation, lipsync, filler-word removal, AI clipping, background removal), as its record keeps it. */
export interface JobSource {
  /** Its object in the media bucket. */
  key: string;
  /** Whether the job owns the object (an input it stored) and deletes it with its record. */
  owned: boolean;
  /** The video of this workspace it is, when it is one (its words are known). */
  video_id: string | null;
  media_type: string;
  size_bytes: number;
}

/** The source of a batch item refused before admission: nothing was stored. */
export const NO_SOURCE: Readonly<JobSource> = {
  key: '',
  owned: false,
  video_id: null,
  media_type: '',
  size_bytes: 0,
};

export interface AdmittedSource {
  source: JobSource;
  /** Seconds to reserve credits for: a video made here is as long as it is; any other file is estimated from its size. */
  estimateSeconds: number;
  /** The title of the video made here, if it is one. */
  title: string | null;
  /** An input object this admission stored, for the caller to delete if the create fails after it. */
  stored: ResolvedMedia | null;
}

/**
 * A media job's source at admission: a video this workspace made (its URL as the API gave it) is read
 * in place, anything else is resolved (downloaded, decoded or looked up as an asset) and type-checked.
 */
export async function admitJobSource(
  workspaceId: string,
  input: MediaInput,
  options: MediaInputOptions,
): Promise<AdmittedSource> {
  const madeHere = await videoMadeHere(workspaceId, input);
  if (madeHere) {
    return {
      source: {
        key: madeHere.key,
        owned: false,
        video_id: madeHere.video_id,
        media_type: 'video/mp4',
        size_bytes: 0,
      },
      estimateSeconds: madeHere.duration_seconds,
      title: madeHere.title,
      stored: null,
    };
  }
  const media = await resolveMediaInput(workspaceId, input, options);
  return {
    source: {
      key: media.objectKey,
      owned: media.source !== 'asset',
      video_id: null,
      media_type: media.mimeType,
      size_bytes: media.sizeBytes,
    },
    estimateSeconds: estimatedSourceSeconds(media.sizeBytes),
    title: null,
    stored: media,
  };
}

/** After a create that failed past admission: the input object the admission stored goes again (assets stay). */
export async function discardAdmittedSource(admitted: AdmittedSource | undefined): Promise<void> {
  if (admitted?.stored && admitted.stored.source !== 'asset')
    await deleteMediaObject(admitted.stored.objectKey);
}

/** The language a video of this service was spoken in: its first script's voice's. */
export async function videoLanguage(workspaceId: string, videoId: string): Promise<string | undefined> {
  const video = await getVideo(workspaceId, videoId, true);
  for (const scene of video?.render.scenes ?? []) {
    const voiceId = scene.speech?.kind === 'script' ? scene.speech.voice_id : null;
    if (!voiceId) continue;
    const stock = findStockVoice(voiceId);
    if (stock) return stock.language;
    const resolved = await resolveVoice(workspaceId, voiceId, config().speechEngine).catch(() => undefined);
    if (resolved) return resolved.language;
  }
  return undefined;
}

/** Whether a video this service made kept its words (every render does; older ones may not). */
export async function hasStoredWords(workspaceId: string, videoId: string | null): Promise<boolean> {
  if (!videoId) return false;
  return Boolean((await getVideo(workspaceId, videoId))?.outputs?.transcript_key);
}

/** The stored words of a video this service made, inside `[startMs, startMs + durationMs)`, on that cut's timeline. */
export async function storedWords(
  workspaceId: string,
  videoId: string,
  startMs: number,
  durationMs: number,
): Promise<TranscriptWord[] | undefined> {
  const video = await getVideo(workspaceId, videoId, true);
  const key = video?.outputs?.transcript_key;
  if (!key) return undefined;
  const words = JSON.parse((await readMediaObject(key)).toString('utf8')) as TranscriptWord[];
  return words
    .filter((word) => word.endMs > startMs && word.startMs < startMs + durationMs)
    .map((word) => ({ ...word, startMs: word.startMs - startMs, endMs: word.endMs - startMs }));
}

export const WORD_SOURCES = { storedScript: 'stored_script', recognition: 'recognition' } as const;

export interface HeardWords {
  source: (typeof WORD_SOURCES)[keyof typeof WORD_SOURCES];
  /** BCP-47, as given or found; null when nothing was heard. */
  language: string | null;
  words: RecognizedWord[];
  /** The recognition engine that gave them (`known_transcript` for stored words); null when none ran. */
  engine: string | null;
}

/**
 * What is said in a source (or its cut): the stored words of a video this service made, else what the
 * configured recognition engine hears in its audio (no audio: no words). A recognition engine that is
 * not configured fails with `engine_unavailable` naming its settings.
 */
export async function sourceWords(source: {
  workspaceId: string;
  /** The video of this workspace the source is, when it is one. */
  videoId: string | null;
  /** The source's object (what the known-transcript engine is told it heard). */
  mediaKey: string;
  /** The cut's audio as a WAV object, for recognition; null without audio. */
  audioKey: string | null;
  /** The language given by the caller (BCP-47), if any. */
  language: string | null;
  startMs: number;
  durationMs: number;
  runId: string;
  workPrefix: string;
}): Promise<HeardWords> {
  const stored = source.videoId
    ? await storedWords(source.workspaceId, source.videoId, source.startMs, source.durationMs)
    : undefined;
  if (stored && stored.length > 0) {
    const language =
      source.language ?? (await videoLanguage(source.workspaceId, source.videoId as string)) ?? 'en';
    const knownTranscript = { words: stored, language };
    const engine = recognitionEngineFor({ knownTranscript });
    const heard = await engine.recognize({
      media: { bucket: config().bucketName, key: source.mediaKey, mediaType: 'video/mp4' },
      runId: source.runId,
      workPrefix: source.workPrefix,
      knownTranscript,
    });
    return {
      source: WORD_SOURCES.storedScript,
      language: heard.language,
      words: heard.words,
      engine: engine.name,
    };
  }
  if (!source.audioKey) return { source: WORD_SOURCES.recognition, language: null, words: [], engine: null };
  const engine = recognitionEngineFor({});
  const heard = await engine.recognize({
    media: { bucket: config().bucketName, key: source.audioKey, mediaType: 'audio/wav' },
    ...(source.language ? { language: source.language } : {}),
    runId: source.runId,
    workPrefix: source.workPrefix,
  });
  return {
    source: WORD_SOURCES.recognition,
    language: heard.language,
    words: heard.words,
    engine: engine.name,
  };
}
