/**
 * The end of every dub, shared by the video translation's Dub step and the lipsync job: the picture's
 * lips re-animated to the new speech (`vision/footage-lips.ts`), the new soundtrack mixed over the
 * original (`composition/dub-soundtrack.ts`: ducked or removed, the speech optionally enhanced), the
 * two muxed (`composition/dubbing.ts`, the source's format kept on request), captions burned by the
 * composition engine, and the files stored: the video, the soundtrack alone as MP3, SRT and WebVTT
 * captions. What comes before differs (a translation speaks translated lines; a lipsync is given its
 * audio); what the caller hands in here is the same: speech clips on the output timeline, the viseme
 * track of that speech, where the lips move, and the caption cues.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CaptionCue } from './composition/composition-engine.js';
import {
  type DubSoundtrack,
  dubSoundtrack,
  encodeAudioFile,
  type FpsMode,
  muxDub,
  ORIGINAL_AUDIO,
  type PreparedSource,
  type SpeechClip,
} from './composition/dubbing.js';
import { compositionEngine } from './composition/index.js';
import { probeMedia } from './composition/probe.js';
import { formatSrt, formatWebVtt } from './composition/subtitle-files.js';
import type { VisemeCue } from './speech/visemes.js';
import { type LipSpan, type ReanimatedLips, reanimateLips } from './vision/footage-lips.js';

export interface DubRenderRequest {
  /** The picture the new sound goes under (cut, retimed or looped already); null for audio only. */
  picturePath: string | null;
  /** The source's soundtrack (a WAV of prepareSource), null when it has none. */
  originalAudioPath: string | null;
  /** Length of the output timeline (the picture's). */
  durationMs: number;
  /** The new speech, placed on the output timeline. */
  speech: readonly SpeechClip[];
  /** Re-animate the lips to this track (ms on the output timeline), inside `spans` (default: all); null keeps them. */
  lips: { visemes: readonly VisemeCue[]; spans?: readonly LipSpan[] | undefined } | null;
  /** Called once the lips are done (before anything is mixed): a caller may refuse what it sees. */
  onLips?: (lips: ReanimatedLips) => Promise<unknown> | undefined;
  /** Progress between the stages, for the record. */
  onStage?: (stage: 'lips' | 'soundtrack') => Promise<unknown>;
  /** `disable_music_track`: the original soundtrack is dropped instead of ducked. */
  removeOriginal: boolean;
  /** `enable_speech_enhancement`: high-pass, de-noise, −16 LUFS on the new speech. */
  enhanceSpeech: boolean;
  keepSameFormat: boolean;
  fpsMode: FpsMode;
  source: Pick<PreparedSource, 'codecs' | 'fps' | 'audioChannels' | 'audioSampleRate'>;
  /** The caption cues of the new speech (stored as SRT and WebVTT; burned with `burnCaptions`). */
  cues: readonly CaptionCue[];
  burnCaptions: boolean;
  workDir: string;
  /** Stores one output file under `name`; returns its object key. */
  store: (path: string, name: string, contentType: string) => Promise<string>;
}

export interface DubOutputs {
  video_key: string | null;
  audio_key: string;
  srt_key: string;
  vtt_key: string;
}

export interface DubRender {
  outputs: DubOutputs;
  /** Length of the stored video (of the soundtrack without a picture). */
  durationMs: number;
  /** What the lips step did; null when the lips were kept. */
  lips: ReanimatedLips | null;
  soundtrack: DubSoundtrack;
}

const VIDEO_CONTAINER_TYPES = { mp4: 'video/mp4', webm: 'video/webm', mkv: 'video/x-matroska' } as const;

/**
 * `footage_lips (40 of 52 frames, 2 faces; kept: no_face 12; faces kept: face_turned 30)`: what the lips
 * step did, for a job's `engines`: the frames with a mouth re-animated, how many faces were, why the
 * other frames kept theirs, and the faces found that kept theirs (counted once a frame).
 */
export function describeLips(lips: ReanimatedLips): string {
  const listed = (counts: Partial<Record<string, number>>) =>
    Object.entries(counts)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(', ');
  const { faces } = lips;
  const kept = Object.keys(faces.reasons).length > 0 ? `; kept: ${listed(faces.reasons)}` : '';
  const facesKept = Object.keys(faces.facesKept).length > 0 ? `; faces kept: ${listed(faces.facesKept)}` : '';
  return `footage_lips (${faces.framesReanimated} of ${faces.framesInSpans} frames, ${faces.tracks} ${faces.tracks === 1 ? 'face' : 'faces'}${kept}${facesKept})`;
}

/** Captions burned into the dubbed video by the composition engine (its caption style and font). */
async function burnCaptions(
  videoPath: string,
  cues: readonly CaptionCue[],
  workDir: string,
): Promise<string> {
  const info = await probeMedia(videoPath);
  const video = info.streams.find((stream) => stream.type === 'video');
  const burnDir = join(workDir, 'captioned');
  await mkdir(burnDir, { recursive: true });
  const result = await compositionEngine().compose({
    workDir: burnDir,
    width: video?.width ?? 1280,
    height: video?.height ?? 720,
    format: 'mp4',
    scenes: [
      {
        durationMs: Math.round(info.durationSeconds * 1000),
        background: { type: 'video', path: videoPath, mode: 'freeze', volume: 1 },
      },
    ],
    captions: [...cues],
    burnCaptions: true,
  });
  return result.videoPath;
}

/** Lips, soundtrack, mux, captions and the stored outputs of one dub. */
export async function renderDub(request: DubRenderRequest): Promise<DubRender> {
  const { workDir } = request;
  let picture = request.picturePath;
  let lips: ReanimatedLips | null = null;
  if (picture && request.lips) {
    lips = await reanimateLips({
      videoPath: picture,
      visemes: request.lips.visemes,
      ...(request.lips.spans ? { spans: request.lips.spans } : {}),
      workDir: join(workDir, 'lips'),
    });
    await request.onLips?.(lips);
    picture = lips.videoPath;
  }
  await request.onStage?.('lips');

  const soundtrack = await dubSoundtrack({
    originalAudioPath: request.originalAudioPath,
    durationMs: request.durationMs,
    speech: request.speech,
    original: request.removeOriginal ? ORIGINAL_AUDIO.remove : ORIGINAL_AUDIO.duck,
    enhanceSpeech: request.enhanceSpeech,
    workDir,
  });
  await request.onStage?.('soundtrack');

  const put = request.store;
  let videoKey: string | null = null;
  let durationMs = soundtrack.durationMs;
  if (picture) {
    const muxed = await muxDub({
      videoPath: picture,
      audioPath: soundtrack.path,
      outPath: join(workDir, 'dubbed.mp4'),
      format: request.keepSameFormat ? 'same' : 'mp4',
      fpsMode: request.fpsMode,
      keepSameFormat: request.keepSameFormat,
      sourceInfo: request.source,
    });
    let finalPath = muxed.path;
    if (request.burnCaptions && request.cues.length > 0)
      finalPath = await burnCaptions(muxed.path, request.cues, workDir);
    // Burned captions are re-encoded as MP4; otherwise the container muxDub wrote (the source's with keep_the_same_format).
    const container = finalPath === muxed.path ? muxed.container : 'mp4';
    videoKey = await put(finalPath, `video.${container}`, VIDEO_CONTAINER_TYPES[container]);
    durationMs = muxed.durationMs;
  }
  const audio = await encodeAudioFile(soundtrack.path, join(workDir, 'audio.mp3'), 'mp3');
  const audioKey = await put(audio.path, 'audio.mp3', 'audio/mpeg');
  await writeFile(join(workDir, 'captions.srt'), formatSrt(request.cues));
  await writeFile(join(workDir, 'captions.vtt'), formatWebVtt(request.cues));
  const srtKey = await put(join(workDir, 'captions.srt'), 'captions.srt', 'application/x-subrip');
  const vttKey = await put(join(workDir, 'captions.vtt'), 'captions.vtt', 'text/vtt');
  return {
    outputs: { video_key: videoKey, audio_key: audioKey, srt_key: srtKey, vtt_key: vttKey },
    durationMs,
    lips,
    soundtrack,
  };
}
