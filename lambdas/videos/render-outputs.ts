/**
 * What a video render stores (the one pass of Compose, or JoinChunks of a chunked render): the video,
 * its captioned copy, the SRT, the transcript, the thumbnail and the GIF, as Finalize takes them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JobFailure } from '../core/errors.js';
import {
  type CaptionCue,
  CompositionError,
  type CompositionResult,
  formatSrt,
} from '../engines/composition/index.js';
import { putMediaObject } from '../media/media-store.js';
import type { ComposeResult, VideoRef } from './video-render-job.js';
import { type TranscriptWord, VIDEO_CONTENT_TYPES, type VideoRecord, videoMediaKeys } from './videos.js';

async function putOutput(ref: VideoRef, path: string, name: string, contentType: string): Promise<string> {
  const key = videoMediaKeys.output(ref, name);
  await putMediaObject(ref.workspace_id, key, await readFile(path), contentType);
  return key;
}

/** The SRT of the captions and the transcript of the spoken words, stored (null where there are none). */
export async function putTextOutputs(
  ref: VideoRef,
  workDir: string,
  cues: readonly CaptionCue[],
  transcript: readonly TranscriptWord[],
): Promise<{ subtitle_key: string | null; transcript_key: string | null }> {
  const srtPath = join(workDir, 'captions.srt');
  const transcriptPath = join(workDir, 'transcript.json');
  if (cues.length > 0) await writeFile(srtPath, formatSrt([...cues]));
  if (transcript.length > 0) await writeFile(transcriptPath, JSON.stringify(transcript));
  const [subtitleKey, transcriptKey] = await Promise.all([
    cues.length > 0 ? putOutput(ref, srtPath, 'captions.srt', 'application/x-subrip') : null,
    transcript.length > 0 ? putOutput(ref, transcriptPath, 'transcript.json', 'application/json') : null,
  ]);
  return { subtitle_key: subtitleKey, transcript_key: transcriptKey };
}

/** The rendered files stored beside the text outputs: what Finalize completes the video with. */
export async function putVideoOutputs(
  ref: VideoRef,
  format: VideoRecord['output_format'],
  result: CompositionResult,
  text: { subtitle_key: string | null; transcript_key: string | null },
): Promise<NonNullable<ComposeResult>> {
  const hasCaptions = text.subtitle_key !== null;
  const [mainKey, captionedKey, thumbnailKey, gifKey] = await Promise.all([
    putOutput(ref, result.videoPath, `video.${format}`, VIDEO_CONTENT_TYPES[format]),
    hasCaptions && result.captionedVideoPath !== result.videoPath
      ? putOutput(ref, result.captionedVideoPath, `captioned.${format}`, VIDEO_CONTENT_TYPES[format])
      : null,
    putOutput(ref, result.thumbnailPath, 'thumbnail.jpg', 'image/jpeg'),
    putOutput(ref, result.gifPath, 'preview.gif', 'image/gif'),
  ]);
  return {
    outputs: {
      video_key: mainKey,
      // Burned into the main video already: the captioned render is the same file.
      captioned_video_key: hasCaptions ? (captionedKey ?? mainKey) : null,
      subtitle_key: text.subtitle_key,
      transcript_key: text.transcript_key,
      thumbnail_key: thumbnailKey,
      gif_key: gifKey,
    },
    duration: Math.round(result.durationSeconds * 1000) / 1000,
  };
}

/** The engine's work, its failures worded for the user (`failure_code` kept). */
export async function composing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CompositionError) {
      throw new JobFailure(error.failureCode, `The video could not be composed: ${error.message}`, {
        cause: error,
      });
    }
    throw error;
  }
}
