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
import { copyMediaObject, putMediaObject } from '../media/media-store.js';
import type { ComposeResult, VideoRef } from './video-render-job.js';
import { type TranscriptWord, VIDEO_CONTENT_TYPES, type VideoRecord, videoMediaKeys } from './videos.js';

async function putOutput(ref: VideoRef, path: string, name: string, contentType: string): Promise<string> {
  const key = videoMediaKeys.output(ref, name);
  await putMediaObject(ref.workspace_id, key, await readFile(path), contentType);
  return key;
}

const TEXT_OUTPUTS = {
  subtitle_key: { name: 'captions.srt', contentType: 'application/x-subrip' },
  transcript_key: { name: 'transcript.json', contentType: 'application/json' },
} as const;
type TextOutputs = Record<keyof typeof TEXT_OUTPUTS, string | null>;

/**
 * The SRT of the captions and the transcript of the spoken words, stored (null where there are none):
 * as outputs, or (`keyOf`) where a chunked render keeps them until its join publishes them.
 */
export async function putTextOutputs(
  ref: VideoRef,
  workDir: string,
  cues: readonly CaptionCue[],
  transcript: readonly TranscriptWord[],
  keyOf: (name: string) => string = (name) => videoMediaKeys.output(ref, name),
): Promise<TextOutputs> {
  const put = async (field: keyof TextOutputs, content: string) => {
    const { name, contentType } = TEXT_OUTPUTS[field];
    const path = join(workDir, name);
    await writeFile(path, content);
    const key = keyOf(name);
    await putMediaObject(ref.workspace_id, key, await readFile(path), contentType);
    return key;
  };
  const [subtitleKey, transcriptKey] = await Promise.all([
    cues.length > 0 ? put('subtitle_key', formatSrt([...cues])) : null,
    transcript.length > 0 ? put('transcript_key', JSON.stringify(transcript)) : null,
  ]);
  return { subtitle_key: subtitleKey, transcript_key: transcriptKey };
}

/**
 * Text outputs a chunked render's Compose kept as work files, copied to the outputs: a video that
 * fails before its join leaves none behind (work files go when it ends).
 */
export async function publishTextOutputs(ref: VideoRef, kept: TextOutputs): Promise<TextOutputs> {
  const publish = async (field: keyof TextOutputs) => {
    const from = kept[field];
    if (!from) return null;
    const { name, contentType } = TEXT_OUTPUTS[field];
    const key = videoMediaKeys.output(ref, name);
    await copyMediaObject(ref.workspace_id, from, key, contentType);
    return key;
  };
  const [subtitleKey, transcriptKey] = await Promise.all([
    publish('subtitle_key'),
    publish('transcript_key'),
  ]);
  return { subtitle_key: subtitleKey, transcript_key: transcriptKey };
}

/** The rendered files stored beside the text outputs: what Finalize completes the video with. */
export async function putVideoOutputs(
  ref: VideoRef,
  format: VideoRecord['output_format'],
  result: CompositionResult,
  text: TextOutputs,
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
