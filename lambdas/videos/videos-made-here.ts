/**
 * Media this service made: a video of the workspace given back as a source (its `video_url` as the API
 * gave it) is read from the media bucket directly, and its words are known (the render keeps them,
 * `transcript_key`): no download, no speech recognition. Video translations and filler-word removals
 * both start from here.
 */

import type { MediaInput } from '../assets/media-inputs.js';
import { config } from '../core/config.js';
import { type RecognizedWord, recognitionEngineFor } from '../engines/recognition/index.js';
import { readMediaObject } from '../media/media-store.js';
import { getVideo, type TranscriptWord } from './videos.js';

/** A video of this workspace that a URL is an output of. */
export interface VideoMadeHere {
  /** Its output object in the media bucket. */
  key: string;
  video_id: string;
  duration_seconds: number;
}

const MADE_HERE_PATH = /\/workspaces\/([^/]+)\/videos\/([0-9a-f]{32})\/([^/]+)$/;

/** The video of this workspace a URL is an output of, and its object; undefined for any other input. */
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
  return { key, video_id: video.video_id, duration_seconds: video.duration ?? 0 };
}

/**
 * The words of a video this service made, between `startMs` and `startMs + durationMs`, on that
 * part's timeline; undefined when the video kept none.
 */
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

/**
 * The stored words of a video made here, read through the `known_transcript` engine (the one choice of
 * `recognitionEngineFor`), so what follows reads one shape whatever heard the words.
 */
export async function hearStoredWords(request: {
  words: RecognizedWord[];
  language: string;
  sourceKey: string;
  runId: string;
  workPrefix: string;
}): Promise<{ engine: string; language: string; words: RecognizedWord[] }> {
  const knownTranscript = { words: request.words, language: request.language };
  const engine = recognitionEngineFor({ knownTranscript });
  const heard = await engine.recognize({
    media: { bucket: config().bucketName, key: request.sourceKey, mediaType: 'video/mp4' },
    runId: request.runId,
    workPrefix: request.workPrefix,
    knownTranscript,
  });
  return { engine: engine.name, language: heard.language, words: heard.words };
}
