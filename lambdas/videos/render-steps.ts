/**
 * The steps of the video render job (`video-render-job.ts`, `state-machines/video-render.asl.json`):
 *
 * prepare → synthesize speech → compose → finalize; the job framework records failures.
 *
 * Steps hand each other small JSON (keys of files in the bucket, never media), read the video fresh
 * and stop quietly when it is gone (deleted mid-render) or already terminal, so a retried or
 * restarted step is harmless. A job that cannot succeed throws `JobFailure` with the user-facing
 * reason; the framework refunds on failure and settles on completion, each exactly once.
 */

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveLookPresenter } from '../avatars/look-presenters.js';
import { lookSpriteSheet } from '../catalog/catalog-media.js';
import { findStockLook, type StockLook } from '../catalog/stock-avatars.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { decodeMonoPcm16 } from '../engines/composition/audio-decode.js';
import { ProcessError } from '../engines/composition/ffmpeg-binaries.js';
import {
  type CaptionCue,
  type ChunkedComposition,
  CompositionError,
  type CompositionRequest,
  type CompositionScene,
  captionCuesFromWords,
  compositionEngine,
  type PresenterAnimation,
  type PresenterSprite,
  probeMedia,
  wordsWithPunctuation,
} from '../engines/composition/index.js';
import {
  generationEngine,
  MEDIA_GENERATION_NOT_CONFIGURED,
  videoGenerationConfigured,
} from '../engines/generation/index.js';
import { speechEngine } from '../engines/speech/index.js';
import { isSpeechEngineError, type WordTiming } from '../engines/speech/speech-engine.js';
import { type Viseme, type VisemeCue, visemesFromAudio } from '../engines/speech/visemes.js';
import { VISION_FAILURE, VisionEngineError } from '../engines/vision/human-runtime.js';
import type { PhotoPresenterResult } from '../engines/vision/photo-presenter.js';
import type { PersonCutOut } from '../engines/vision/segmentation.js';
import { finishJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import {
  copyMediaObject,
  deleteMediaObject,
  downloadMediaObject,
  headMediaObject,
  putMediaObject,
  readMediaObject,
} from '../media/media-store.js';
import {
  combinedSettings,
  type ResolvedVoice,
  resolveVoice,
  VOICE_RESOLUTION_FAILURE,
  VoiceResolutionError,
} from '../voices/voice-resolution.js';
import { brandKitComposition } from './brand-kit-composition.js';
import { chunksOf, composeChunk, composeWork, joinChunks, planChunkedRender } from './chunked-render.js';
import { composing, putTextOutputs, putVideoOutputs } from './render-outputs.js';
import { frameSize, type RenderScene } from './render-spec.js';
import {
  type ComposePlan,
  type ComposeResult,
  type PreparedScene,
  type PrepareResult,
  type SpeechResult,
  type VideoRef,
  videoRenderJob,
} from './video-render-job.js';
import {
  getVideo,
  isTerminal,
  markCompleted,
  markProcessing,
  type TranscriptWord,
  updateProcessing,
  VIDEO_FAILURE,
  VIDEO_STATUS,
  type VideoOutputs,
  type VideoRecord,
  videoMediaKeys,
} from './videos.js';

async function liveVideo(ref: VideoRef): Promise<VideoRecord | undefined> {
  const video = await getVideo(ref.workspace_id, ref.video_id, true);
  return video && !isTerminal(video) ? video : undefined;
}

// ---------------------------------------------------------------------------------------------
// prepare

async function resolveScene(
  workspaceId: string,
  scene: RenderScene,
  speechEngineName: string,
): Promise<PreparedScene> {
  let portraitKey: string | null = null;
  let defaultVoiceId: string | null = null;
  let sprites: PreparedScene['presenter_sprite_sheet'];
  let footageKey: string | null = null;
  let track: PreparedScene['presenter_footage_track'];
  let cutOutKey: string | null = null;
  let faceBox: PreparedScene['presenter_face_box'];
  if (scene.presenter?.kind === 'avatar') {
    // Stock looks and the workspace's own, looked up now: one deleted since the video was created (or a
    // twin whose consent was withdrawn) fails the video with the reason.
    const look = await resolveLookPresenter(workspaceId, scene.presenter.avatar_id);
    if (!look.usable) {
      throw new JobFailure(
        VIDEO_FAILURE.avatarNotFound,
        look.message.replace(
          `Avatar ${scene.presenter.avatar_id} `,
          `Avatar ${scene.presenter.avatar_id} (${scene.id}) `,
        ),
      );
    }
    portraitKey = look.media.portraitKey;
    defaultVoiceId = look.media.defaultVoiceId;
    sprites = look.media.spriteSheet;
    footageKey = look.media.footageKey;
    track = look.media.track ?? undefined;
    cutOutKey = look.media.cutOutKey;
    faceBox = look.media.faceBox ?? undefined;
  } else if (scene.presenter?.kind === 'image') {
    portraitKey = scene.presenter.key;
  }
  const presenter = {
    scene_id: scene.id,
    portrait_key: portraitKey,
    ...(sprites ? { presenter_sprite_sheet: sprites } : {}),
    ...(footageKey ? { presenter_footage_key: footageKey } : {}),
    ...(track ? { presenter_footage_track: track } : {}),
    ...(cutOutKey ? { presenter_cut_out_key: cutOutKey } : {}),
    ...(faceBox ? { presenter_face_box: faceBox } : {}),
  };
  if (scene.speech?.kind !== 'script') {
    return { ...presenter, voice_id: null, engine_voice_id: null };
  }
  const voiceId = scene.speech.voice_id ?? defaultVoiceId;
  if (!voiceId) {
    throw new JobFailure(
      VIDEO_FAILURE.voiceNotFound,
      `Voice (none) (${scene.id}) does not exist or was deleted; pick a voice from GET /v3/voices.`,
    );
  }
  // Stock voices and the workspace's own (designed, cloned): looked up now, so one deleted since the
  // video was created fails it with a reason.
  let voice: ResolvedVoice;
  try {
    voice = await resolveVoice(workspaceId, voiceId, speechEngineName);
  } catch (error) {
    if (!(error instanceof VoiceResolutionError)) throw error;
    throw new JobFailure(
      error.failureCode === VOICE_RESOLUTION_FAILURE.notFound
        ? VIDEO_FAILURE.voiceNotFound
        : VIDEO_FAILURE.voiceNotUsable,
      error.message.replace(`Voice ${voiceId} `, `Voice ${voiceId} (${scene.id}) `),
    );
  }
  return {
    ...presenter,
    voice_id: voiceId,
    engine_voice_id: voice.engineVoiceId,
    voice_speed: voice.speed,
    voice_pitch: voice.pitch,
  };
}

async function prepare(ref: VideoRef): Promise<PrepareResult> {
  // A workflow started again after a crash (local restart, redrive) finds its video ended or gone.
  const found = await resumeJob(videoRenderJob, ref);
  if (!found) return { proceed: false, scenes: [] };
  const video = await markProcessing(found);
  if (!video) return { proceed: false, scenes: [] };
  if (video.render.cinematic && !videoGenerationConfigured()) {
    throw new JobFailure(
      VIDEO_FAILURE.engineUnavailable,
      `cinematic_avatar videos need a generative video model. ${MEDIA_GENERATION_NOT_CONFIGURED}`,
    );
  }
  // The engine by name only: preparing speaks nothing (its function may not call the engine).
  const speechEngineName = config().speechEngine;
  const scenes: PreparedScene[] = [];
  for (const scene of video.render.scenes)
    scenes.push(await resolveScene(ref.workspace_id, scene, speechEngineName));
  if (video.render.burn_captions && video.render.scenes.some((scene) => scene.speech?.kind === 'audio')) {
    throw new JobFailure(
      VIDEO_FAILURE.engineUnavailable,
      'Burned captions need the words of the speech: for a recording (audio_url or audio_asset_id) that takes speech recognition, which this deployment does not have. Use script, or omit caption.style.',
    );
  }
  // The scenes document names the voice each script is spoken with, the look's default included.
  const render = {
    ...video.render,
    scenes: video.render.scenes.map((scene, index) =>
      scene.speech?.kind === 'script'
        ? { ...scene, speech: { ...scene.speech, voice_id: scenes[index]?.voice_id ?? null } }
        : scene,
    ),
  };
  await updateProcessing(video, {
    progress: 10,
    render,
    scenes_ready: true,
    engines: { speech: speechEngineName, composition: null },
  });
  return { proceed: true, scenes };
}

// ---------------------------------------------------------------------------------------------
// synthesize speech

async function putWork(ref: VideoRef, name: string, body: Uint8Array, contentType: string): Promise<string> {
  const key = videoMediaKeys.work(ref, name);
  await putMediaObject(ref.workspace_id, key, body, contentType);
  return key;
}

async function synthesizeSpeech(ref: VideoRef, prepared: PreparedScene[]): Promise<SpeechResult> {
  const video = await liveVideo(ref);
  if (!video) return { scenes: [] };
  const engine = speechEngine();
  const results: SpeechResult['scenes'] = [];
  const reusedScenes: string[] = [];
  for (const scene of video.render.scenes) {
    const resolved = prepared.find((entry) => entry.scene_id === scene.id);
    if (scene.speech?.kind !== 'script' || !resolved?.engine_voice_id) {
      results.push({
        scene_id: scene.id,
        audio_key: null,
        timings_key: null,
        visemes_key: null,
        duration_ms: null,
      });
      continue;
    }
    const request = {
      text: scene.speech.text,
      voiceId: resolved.engine_voice_id,
      ...combinedSettings(
        { speed: resolved.voice_speed ?? 1, pitch: resolved.voice_pitch ?? 0 },
        scene.speech.settings,
      ),
      volume: scene.speech.settings.volume,
      pronunciations: video.render.pronunciations ?? [],
    };
    // What was spoken, by which engine: speech kept for reuse is reused only when all of it matches.
    const spoken = JSON.stringify({ engine: engine.name, ...request });
    const reused = scene.speech.reuse
      ? await reuseSpeech(ref, scene.id, scene.speech.reuse, spoken, video.render.keep_speech === true)
      : undefined;
    if (reused) {
      results.push(reused);
      reusedScenes.push(scene.id);
      continue;
    }
    let synthesis: Awaited<ReturnType<typeof engine.synthesize>>;
    try {
      synthesis = await engine.synthesize(request);
    } catch (error) {
      if (isSpeechEngineError(error)) {
        throw new JobFailure(
          error.failureCode,
          `Speech for ${scene.id} could not be made: ${error.message}`,
          { cause: error },
        );
      }
      throw error;
    }
    results.push({
      scene_id: scene.id,
      audio_key: await putWork(ref, `${scene.id}.wav`, synthesis.audio, 'audio/wav'),
      timings_key: await putWork(
        ref,
        `${scene.id}.words.json`,
        Buffer.from(JSON.stringify(synthesis.words)),
        'application/json',
      ),
      visemes_key: await putWork(
        ref,
        `${scene.id}.visemes.json`,
        Buffer.from(JSON.stringify(synthesis.visemes)),
        'application/json',
      ),
      duration_ms: synthesis.durationMs,
    });
    if (video.render.keep_speech) {
      await keepSpeech(ref, scene.id, synthesis, spoken);
    }
  }
  await updateProcessing(video, {
    progress: 35,
    ...(reusedScenes.length > 0 ? { reused_speech: reusedScenes } : {}),
  });
  return { scenes: results };
}

/** What a kept scene's speech was (`speech/<scene>.json`). */
interface KeptSpeech {
  spoken: string;
  duration_ms: number;
}

const KEPT_SPEECH_FILES = [
  ['wav', 'audio/wav'],
  ['words.json', 'application/json'],
  ['visemes.json', 'application/json'],
] as const;

/** Keeps a scene's speech beside the video (`RenderSpec.keep_speech`), for a later video to reuse. */
async function keepSpeech(
  ref: VideoRef,
  sceneId: string,
  synthesis: { audio: Uint8Array; words: unknown; visemes: unknown; durationMs: number },
  spoken: string,
): Promise<void> {
  const put = (name: string, body: Uint8Array, type: string) =>
    putMediaObject(ref.workspace_id, videoMediaKeys.speech(ref, name), body, type);
  await put(`${sceneId}.wav`, synthesis.audio, 'audio/wav');
  await put(`${sceneId}.words.json`, Buffer.from(JSON.stringify(synthesis.words)), 'application/json');
  await put(`${sceneId}.visemes.json`, Buffer.from(JSON.stringify(synthesis.visemes)), 'application/json');
  const kept: KeptSpeech = { spoken, duration_ms: synthesis.durationMs };
  await put(`${sceneId}.json`, Buffer.from(JSON.stringify(kept)), 'application/json');
}

/**
 * The speech of an earlier video's scene, copied into this video's work files (and kept again when
 * this video keeps its speech), when it was the same words in the same voice; else undefined.
 */
async function reuseSpeech(
  ref: VideoRef,
  sceneId: string,
  from: { video_id: string; scene_id: string },
  spoken: string,
  keep: boolean,
): Promise<SpeechResult['scenes'][number] | undefined> {
  const source = { workspace_id: ref.workspace_id, video_id: from.video_id };
  const manifest = await headMediaObject(videoMediaKeys.speech(source, `${from.scene_id}.json`));
  if (!manifest) return undefined;
  const kept = JSON.parse(
    (await readMediaObject(videoMediaKeys.speech(source, `${from.scene_id}.json`))).toString('utf8'),
  ) as KeptSpeech;
  if (kept.spoken !== spoken) return undefined;
  const keys: string[] = [];
  for (const [extension, type] of KEPT_SPEECH_FILES) {
    const fromKey = videoMediaKeys.speech(source, `${from.scene_id}.${extension}`);
    const toKey = videoMediaKeys.work(ref, `${sceneId}.${extension}`);
    await copyMediaObject(ref.workspace_id, fromKey, toKey, type);
    if (keep)
      await copyMediaObject(
        ref.workspace_id,
        fromKey,
        videoMediaKeys.speech(ref, `${sceneId}.${extension}`),
        type,
      );
    keys.push(toKey);
  }
  if (keep)
    await putMediaObject(
      ref.workspace_id,
      videoMediaKeys.speech(ref, `${sceneId}.json`),
      Buffer.from(JSON.stringify(kept)),
      'application/json',
    );
  return {
    scene_id: sceneId,
    audio_key: keys[0] ?? null,
    timings_key: keys[1] ?? null,
    visemes_key: keys[2] ?? null,
    duration_ms: kept.duration_ms,
  };
}

// ---------------------------------------------------------------------------------------------
// compose

async function probeSeconds(path: string, what: string): Promise<number> {
  try {
    const probe = await probeMedia(path);
    if (!(probe.durationSeconds > 0)) throw new CompositionError('invalid_media', `${what} has no duration`);
    return probe.durationSeconds;
  } catch (error) {
    if (error instanceof CompositionError)
      throw new JobFailure(VIDEO_FAILURE.invalidMedia, `${what} cannot be read: ${error.message}`, {
        cause: error,
      });
    throw error;
  }
}

/** How a video's presenters were animated (`engines.presenter`, videos.ts). */
const PRESENTER_ANIMATION = {
  stockSprites: 'stock_sprites',
  /** A look of the workspace's own (photo, prompt, look pack): its sprites were made when it trained. */
  lookSprites: 'look_sprites',
  /** A digital twin: its footage loops under sprites made from its first frame. */
  twinFootage: 'twin_footage',
  photoLandmarks: 'photo_landmarks',
  still: 'still',
  /** The person was cut out of the photo (vision/segmentation.ts) and shown on the chosen background. */
  personCutOut: 'person_cut_out',
} as const;

/** A presenter as every scene showing it uses it: its picture, its sprites, and how it was animated. */
interface PreparedPresenter {
  /** The picture; for footage, its first frame (what its sprites were made on). */
  imagePath: string;
  /** A digital twin's footage loop. */
  videoPath?: string;
  sprites?: Pick<PresenterAnimation, 'mouths' | 'blink'>;
  /** `engines.presenter` of the video (PRESENTER_ANIMATION). */
  animated: string;
}

/** Writes sprites as files under `name(sprite)`, keyed as an animation takes them. */
async function spriteFiles(
  sprites: readonly {
    sprite: string;
    box: PresenterSprite['box'];
    write: (path: string) => Promise<unknown>;
  }[],
  name: (sprite: string) => string,
): Promise<Pick<PresenterAnimation, 'mouths' | 'blink'>> {
  const mouths: PresenterAnimation['mouths'] = {};
  let blink: PresenterAnimation['blink'];
  await Promise.all(
    sprites.map(async ({ sprite, box, write }) => {
      const placed = { imagePath: name(sprite), box };
      await write(placed.imagePath);
      if (sprite === 'blink') blink = placed;
      else mouths[sprite as Viseme] = placed;
    }),
  );
  return { mouths, ...(blink ? { blink } : {}) };
}

/** A look (stock or own): its picture or footage, and the sprites cut from its sheet. */
async function sheetPresenter(
  portrait: string,
  sheet: NonNullable<PreparedScene['presenter_sprite_sheet']>,
  file: (name: string) => string,
  animated: string,
  footageKey: string | undefined,
): Promise<PreparedPresenter> {
  // sharp lives in the media image, where Compose runs; this module's other steps run as zip
  // functions without it.
  const { default: sharp } = await import('sharp');
  const sheetPath = await downloadMediaObject(sheet.key, file('sprites.png'));
  const sprites = await spriteFiles(
    sheet.sprites.map(({ sprite, box, sheet_top }) => ({
      sprite,
      box,
      write: (path: string) =>
        sharp(sheetPath)
          .extract({ left: 0, top: sheet_top, width: box.width, height: box.height })
          .toFile(path),
    })),
    (sprite) => file(`sprite-${sprite}.png`),
  );
  if (!footageKey) return { imagePath: portrait, sprites, animated };
  return {
    imagePath: portrait,
    videoPath: await downloadMediaObject(footageKey, file('footage.mp4')),
    sprites,
    animated,
  };
}

/**
 * An `image` presenter: a photo with one usable face talks with sprites warped from its own mouth and
 * eyes (vision/photo-presenter.ts), shown upright; with `cutOutPerson`, the person is cut out of its
 * backdrop (vision/segmentation.ts), unless the picture is cut out already (it has transparency). A
 * picture the vision engines cannot use (no usable face, unreadable to them, the engines unavailable)
 * stays as it is, moving gently: ffmpeg still shows it, and the record says why.
 */
async function photoPresenter(
  path: string,
  file: (name: string) => string,
  options: { cutOutPerson: boolean },
): Promise<PreparedPresenter> {
  let prepared: PhotoPresenterResult;
  let cutOut: PersonCutOut | undefined;
  try {
    // Loaded here, not with the module: sharp and the vision runtime live in the media image.
    const [{ preparePhotoPresenter }, { cutOutPerson, NO_PERSON_COVERAGE }, { default: sharp }] =
      await Promise.all([
        import('../engines/vision/photo-presenter.js'),
        import('../engines/vision/segmentation.js'),
        import('sharp'),
      ]);
    const photo = await readFile(path);
    prepared = await preparePhotoPresenter(photo);
    const alpha = (await sharp(photo).stats()).channels[3];
    const cutAlready = alpha !== undefined && alpha.min < 255;
    if (options.cutOutPerson && !cutAlready) {
      // The upright photo when there is one: the sprites' boxes are in its pixels.
      cutOut = await cutOutPerson(prepared.kind === 'animated' ? prepared.image : photo);
      if (cutOut.coverage < NO_PERSON_COVERAGE) cutOut = undefined;
    }
  } catch (error) {
    if (!(error instanceof VisionEngineError)) throw error;
    const reason =
      error.failureCode === VISION_FAILURE.engineUnavailable ? 'vision_unavailable' : 'unreadable';
    return { imagePath: path, animated: `${PRESENTER_ANIMATION.still} (${reason})` };
  }
  const separated = cutOut ? `, ${PRESENTER_ANIMATION.personCutOut}` : '';
  let imagePath = path;
  if (cutOut) {
    imagePath = file('person.png');
    await writeFile(imagePath, cutOut.png);
  }
  if (prepared.kind === 'still') {
    return { imagePath, animated: `${PRESENTER_ANIMATION.still} (${prepared.reason})${separated}` };
  }
  if (!cutOut) {
    imagePath = file('upright.png');
    await writeFile(imagePath, prepared.image);
  }
  const sprites = await spriteFiles(
    Object.entries(prepared.sprites).map(([sprite, { box, png }]) => ({
      sprite,
      box,
      write: (target: string) => writeFile(target, png),
    })),
    (sprite) => file(`sprite-${sprite}.png`),
  );
  return { imagePath, sprites, animated: `${PRESENTER_ANIMATION.photoLandmarks}${separated}` };
}

/** Width over height of a video's aspect ratio; undefined for `auto` (the frame follows the presenter). */
function aspectRatioValue(aspectRatio: VideoRecord['aspect_ratio']): number | undefined {
  if (aspectRatio === 'auto') return undefined;
  const [width, height] = aspectRatio.split(':').map(Number) as [number, number];
  return width / height;
}

/** Framing a picture changes nothing below this difference of shape (a 4:5 photo in a 1:1 video stays). */
const FRAMING_TOLERANCE = 0.2;

/**
 * An own photo or drawn look in a video of another shape (a landscape photo in a 9:16 video): the
 * picture is cropped to the video's shape around the face, so the person fills the frame instead of
 * standing small at its bottom; the sprites move with the crop.
 */
async function framedAroundFace(
  made: PreparedPresenter,
  face: NonNullable<PreparedScene['presenter_face_box']>,
  ratio: number,
  file: (name: string) => string,
): Promise<PreparedPresenter> {
  const { default: sharp } = await import('sharp');
  const { width = 0, height = 0 } = await sharp(made.imagePath).metadata();
  if (!width || !height || Math.abs(width / height - ratio) / ratio <= FRAMING_TOLERANCE) return made;
  const narrower = ratio < width / height;
  const cropWidth = narrower ? Math.round(height * ratio) : width;
  const cropHeight = narrower ? height : Math.round(width / ratio);
  const clamp = (value: number, max: number) => Math.min(Math.max(0, Math.round(value)), max);
  // Centred on the face across; down the picture, the face sits in its upper third.
  const left = narrower ? clamp(face.x + face.width / 2 - cropWidth / 2, width - cropWidth) : 0;
  const top = narrower ? 0 : clamp(face.y + face.height / 2 - cropHeight / 3, height - cropHeight);
  const imagePath = file('framed.png');
  await sharp(made.imagePath)
    .extract({ left, top, width: cropWidth, height: cropHeight })
    .png()
    .toFile(imagePath);
  const moved = (sprite: PresenterSprite) => ({
    ...sprite,
    box: { ...sprite.box, x: sprite.box.x - left, y: sprite.box.y - top },
  });
  const sprites = made.sprites && {
    mouths: Object.fromEntries(
      Object.entries(made.sprites.mouths).map(([viseme, sprite]) => [
        viseme,
        moved(sprite as PresenterSprite),
      ]),
    ),
    ...(made.sprites.blink ? { blink: moved(made.sprites.blink) } : {}),
  };
  return { ...made, imagePath, ...(sprites ? { sprites } : {}), animated: `${made.animated}, framed` };
}

/** Nova Reel makes 6 s, or multiples of 6 s up to 2 minutes: the footage is made long enough and cut. */
const GENERATED_VIDEO_STEP_SECONDS = 6;

/**
 * A `cinematic_avatar` video's footage, made from its prompt by the configured video model (written to
 * the video's work files, idempotent on the video id), as the one scene of the composition. The look
 * ids only name who the prompt is about: no model here can film a given stock look.
 */
async function generateFootage(
  ref: VideoRef,
  cinematic: NonNullable<VideoRecord['render']['cinematic']>,
  path: string,
): Promise<{ scene: CompositionScene; engine: string }> {
  const durationSeconds =
    Math.ceil(cinematic.duration_seconds / GENERATED_VIDEO_STEP_SECONDS) * GENERATED_VIDEO_STEP_SECONDS;
  const generated = await generationEngine().generateVideo({
    prompt: cinematic.prompt,
    durationSeconds,
    output: { bucket: config().bucketName, prefix: videoMediaKeys.work(ref, 'generated') },
    runId: ref.video_id,
  });
  await downloadMediaObject(generated.key, path);
  return {
    scene: {
      durationMs: cinematic.duration_seconds * 1000,
      background: { type: 'video', path, mode: 'freeze', volume: 1 },
    },
    engine: `${generated.engine} (${generated.model})`,
  };
}

/** Where a stock look's sprites are, as the render steps pass it on. */
function spriteSheetOf(look: StockLook): NonNullable<PreparedScene['presenter_sprite_sheet']> {
  const sheet = lookSpriteSheet(look);
  return {
    key: sheet.key,
    sprites: sheet.sprites.map(({ sprite, box, sheetTop }) => ({ sprite, box, sheet_top: sheetTop })),
  };
}

/** A repeatable seed per scene, so a video rendered again blinks at the same moments. */
function blinkSeedOf(videoId: string, sceneIndex: number): number {
  return createHash('sha256').update(`${videoId}#${sceneIndex}`).digest().readInt32BE(0);
}

/** Rate the mouth of a recording is measured at: the speech band (300–3400 Hz) needs no more. */
const RECORDING_ANALYSIS_RATE = 16_000;

async function recordingVisemes(path: string, sceneId: string): Promise<VisemeCue[]> {
  try {
    return visemesFromAudio(
      await decodeMonoPcm16(path, { sampleRate: RECORDING_ANALYSIS_RATE }),
      RECORDING_ANALYSIS_RATE,
    );
  } catch (error) {
    // ffmpeg ran and refused the file: the user's recording; anything else: the engine.
    if (error instanceof ProcessError && error.reason === 'exit_code')
      throw new JobFailure(VIDEO_FAILURE.invalidMedia, `The audio of ${sceneId} cannot be decoded.`, {
        cause: error,
      });
    throw new JobFailure(
      VIDEO_FAILURE.engineUnavailable,
      `The audio of ${sceneId} could not be measured: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** A plan without chunks: the video was rendered in one pass (or ended: null). */
function renderedInOnePass(composed: ComposeResult): ComposePlan {
  return { composed, chunks: [], max_concurrency: 1, chunked: null };
}

async function compose(ref: VideoRef, prepared: PreparedScene[], speech: SpeechResult): Promise<ComposePlan> {
  const video = await liveVideo(ref);
  if (!video) return renderedInOnePass(null);
  await mkdir(config().mediaWorkDir, { recursive: true });
  const workDir = await mkdtemp(join(config().mediaWorkDir, `video-${video.video_id}-`));
  try {
    const scenes: CompositionScene[] = [];
    const cues: CaptionCue[] = [];
    // Every spoken word on the video's timeline: a translation of this video reads them instead of
    // hearing the video again (translations/source-transcript.ts).
    const transcript: TranscriptWord[] = [];
    const recorded = new Set<string>();
    // Scenes showing the same look or photo share its files and its landmarks (found once).
    const presenters = new Map<string, Promise<PreparedPresenter>>();
    const frameRatio = aspectRatioValue(video.aspect_ratio);
    const presenterOf = (
      resolved: PreparedScene & { portrait_key: string },
      presenter: NonNullable<RenderScene['presenter']>,
      background: RenderScene['background'],
    ): Promise<PreparedPresenter> => {
      // A stock look's sheet from Prepare; a render prepared before sheets existed finds it by look.
      const stock = presenter.kind === 'avatar' ? findStockLook(presenter.avatar_id) : undefined;
      const sheet = resolved.presenter_sprite_sheet ?? (stock ? spriteSheetOf(stock) : undefined);
      // Over a picture or clip of the request's own (or nothing), the person is shown without their backdrop.
      const ownBackground = background.type !== 'color' || background.transparent === true;
      const cutOutPerson = presenter.kind === 'image' && ownBackground;
      const cutOutKey = ownBackground ? resolved.presenter_cut_out_key : undefined;
      const pictureKey = cutOutKey ?? resolved.portrait_key;
      const key = `${pictureKey}#${cutOutPerson}`;
      let prepared = presenters.get(key);
      if (!prepared) {
        const file = (name: string) => join(workDir, `presenter-${presenters.size + 1}-${name}`);
        const animated = stock
          ? PRESENTER_ANIMATION.stockSprites
          : resolved.presenter_footage_key
            ? PRESENTER_ANIMATION.twinFootage
            : cutOutKey
              ? `${PRESENTER_ANIMATION.lookSprites}, ${PRESENTER_ANIMATION.personCutOut}`
              : PRESENTER_ANIMATION.lookSprites;
        const faceBox = resolved.presenter_face_box;
        prepared = downloadMediaObject(pictureKey, file('portrait'))
          .then((picture) =>
            sheet
              ? sheetPresenter(picture, sheet, file, animated, resolved.presenter_footage_key)
              : presenter.kind === 'image'
                ? photoPresenter(picture, file, { cutOutPerson })
                : { imagePath: picture, animated: PRESENTER_ANIMATION.still },
          )
          .then((made) =>
            faceBox && frameRatio !== undefined ? framedAroundFace(made, faceBox, frameRatio, file) : made,
          );
        presenters.set(key, prepared);
      }
      return prepared;
    };
    let generation: string | null = null;
    if (video.render.cinematic) {
      const generated = await generateFootage(ref, video.render.cinematic, join(workDir, 'generated.mp4'));
      scenes.push(generated.scene);
      generation = generated.engine;
    }
    let offsetMs = 0;
    let presenterSize: { width: number; height: number } | undefined;
    for (const scene of video.render.scenes) {
      const resolved = prepared.find((entry) => entry.scene_id === scene.id);
      const spoken = speech.scenes.find((entry) => entry.scene_id === scene.id);
      const file = (name: string) => join(workDir, `${scene.id}-${name}`);
      let narration: CompositionScene['narration'];
      let durationMs = scene.duration_ms ?? 0;
      let visemes: VisemeCue[] = [];
      if (spoken?.audio_key && spoken.duration_ms) {
        narration = { path: await downloadMediaObject(spoken.audio_key, file('speech.wav')), volume: 1 };
        durationMs = spoken.duration_ms;
        if (spoken.visemes_key)
          visemes = JSON.parse(
            await readFile(await downloadMediaObject(spoken.visemes_key, file('visemes.json')), 'utf8'),
          ) as VisemeCue[];
        const words = JSON.parse(
          await readFile(await downloadMediaObject(spoken.timings_key as string, file('words.json')), 'utf8'),
        ) as WordTiming[];
        const text = scene.speech?.kind === 'script' ? scene.speech.text : '';
        const punctuated = wordsWithPunctuation(text, words, durationMs);
        // Every word of the script, and no cue past the scene's audio (into the next scene's cues).
        for (const cue of captionCuesFromWords(punctuated, { untilMs: durationMs }))
          cues.push({ ...cue, startMs: cue.startMs + offsetMs, endMs: cue.endMs + offsetMs });
        for (const word of punctuated)
          transcript.push({
            word: word.word,
            startMs: word.startMs + offsetMs,
            endMs: word.endMs + offsetMs,
          });
      } else if (scene.speech?.kind === 'audio') {
        const path = await downloadMediaObject(scene.speech.key, file('audio'));
        durationMs = Math.round((await probeSeconds(path, `The audio of ${scene.id}`)) * 1000);
        narration = { path, volume: 1 };
        // A recording nobody here synthesized: the mouth follows its loudness.
        if (resolved?.portrait_key) visemes = await recordingVisemes(path, scene.id);
      }
      let background: CompositionScene['background'];
      if (scene.background.type === 'color') background = scene.background;
      else if (scene.background.type === 'image')
        background = {
          type: 'image',
          path: await downloadMediaObject(scene.background.key, file('background')),
          fit: scene.background.fit,
        };
      else {
        const path = await downloadMediaObject(scene.background.key, file('clip'));
        const clipMs = Math.round((await probeSeconds(path, `The video of ${scene.id}`)) * 1000);
        if (!narration) durationMs = clipMs;
        background = { type: 'video', path, mode: scene.background.mode, volume: scene.background.volume };
      }
      let avatar: CompositionScene['avatar'];
      if (resolved?.portrait_key && scene.presenter) {
        const presenter = await presenterOf(
          { ...resolved, portrait_key: resolved.portrait_key },
          scene.presenter,
          scene.background,
        );
        recorded.add(presenter.animated);
        avatar = {
          imagePath: presenter.imagePath,
          ...(presenter.videoPath ? { videoPath: presenter.videoPath } : {}),
          ...(presenter.videoPath && resolved.presenter_footage_track
            ? { track: resolved.presenter_footage_track }
            : {}),
          fit: scene.presenter.fit,
          ...(presenter.sprites
            ? {
                animation: {
                  ...presenter.sprites,
                  visemes,
                  blinkSeed: blinkSeedOf(video.video_id, scenes.length),
                },
              }
            : {}),
        };
        if (!presenterSize) {
          const probe = await probeMedia(presenter.imagePath).catch(() => undefined);
          const stream = probe?.streams.find((entry) => entry.width && entry.height);
          if (stream?.width && stream.height) presenterSize = { width: stream.width, height: stream.height };
        }
      }
      if (!(durationMs > 0))
        throw new JobFailure(
          VIDEO_FAILURE.invalidMedia,
          `${scene.id} has nothing to last for: give it speech or a duration.`,
        );
      scenes.push({
        durationMs,
        background,
        ...(avatar ? { avatar } : {}),
        ...(narration ? { narration } : {}),
      });
      offsetMs += durationMs;
    }
    await updateProcessing(video, { progress: 45 });
    const mark = video.render.watermark;
    const watermark = mark
      ? {
          imagePath: await downloadMediaObject(mark.key, join(workDir, 'watermark')),
          opacity: mark.opacity,
          scale: mark.scale,
          position: mark.position,
          offsetX: mark.offset_x,
          offsetY: mark.offset_y,
        }
      : undefined;
    const music = video.render.music
      ? {
          path: await downloadMediaObject(video.render.music.key, join(workDir, 'music')),
          volume: video.render.music.volume,
        }
      : undefined;
    const engine = compositionEngine();
    const size = frameSize(video.resolution, video.aspect_ratio, presenterSize);
    const branding = await brandKitComposition(video.render.brand_kit, {
      workDir,
      ...size,
      ...(mark ? { watermarkPosition: mark.position } : {}),
    });
    const request: CompositionRequest = {
      workDir,
      width: size.width,
      height: size.height,
      format: video.output_format,
      scenes,
      captions: cues,
      // Without words there is nothing to caption: one plain encode serves both renders.
      burnCaptions: video.render.burn_captions || cues.length === 0,
      ...(watermark ? { watermark } : {}),
      ...(music ? { music } : {}),
      ...(video.render.transition
        ? {
            transition: {
              kind: video.render.transition.kind,
              durationMs: video.render.transition.duration_ms,
            },
          }
        : {}),
      ...branding,
    };
    const engines = {
      ...video.engines,
      composition: engine.name,
      presenter: recorded.size > 0 ? [...recorded].join(', ') : null,
      ...(generation ? { generation } : {}),
    };
    const chunks = chunksOf(request, engine.chunked);
    if (engine.chunked && chunks.length > 0) {
      const text = await putTextOutputs(ref, workDir, cues, transcript, composeWork.kept(ref));
      const plan = await planChunkedRender(ref, request, engine.chunked, chunks, text);
      await updateProcessing(video, { progress: 50, engines });
      return plan;
    }
    const result = await composing(() => engine.compose(request));
    await updateProcessing(video, { progress: 90, engines });
    const text = await putTextOutputs(ref, workDir, cues, transcript);
    return renderedInOnePass(await putVideoOutputs(ref, video.output_format, result, text));
  } catch (error) {
    // Engines name the files they were given; the user knows scenes, not this step's scratch paths.
    if (error instanceof JobFailure) {
      throw new JobFailure(error.failureCode, error.message.replaceAll(`${workDir}/`, ''), { cause: error });
    }
    throw error;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The engine's chunked rendering: chunks are only planned by an engine that has one. */
function chunkedComposition(): ChunkedComposition {
  const chunked = compositionEngine().chunked;
  if (!chunked)
    throw new JobFailure(
      VIDEO_FAILURE.engineUnavailable,
      `The ${compositionEngine().name} composition engine cannot render chunks.`,
    );
  return chunked;
}

async function joinChunked(ref: VideoRef, plan: ComposePlan): Promise<ComposeResult> {
  // Rendered in one pass by Compose (or ended before): nothing to join.
  if (plan.composed !== undefined || !plan.chunked) return plan.composed ?? null;
  const video = await liveVideo(ref);
  if (!video) return null;
  const composed = await joinChunks(video, { ...plan, chunked: plan.chunked }, chunkedComposition());
  await updateProcessing(video, { progress: 90 });
  return composed;
}

// ---------------------------------------------------------------------------------------------
// finalize

async function removeOutputs(outputs: VideoOutputs): Promise<void> {
  const keys = new Set(Object.values(outputs).filter((key): key is string => typeof key === 'string'));
  await Promise.all([...keys].map((key) => deleteMediaObject(key)));
}

async function finalize(ref: VideoRef, composed: ComposeResult): Promise<null> {
  const video = await getVideo(ref.workspace_id, ref.video_id, true);
  if (!composed) {
    // Compose found the video ended or gone: finish that ending, or remove what the run left.
    if (video) await finishJob(videoRenderJob, video);
    else await videoRenderJob.cleanUpGone?.(ref);
    return null;
  }
  // A repeated step finds the video completed already and only repeats what follows (all idempotent).
  const done =
    video?.status === VIDEO_STATUS.completed
      ? video
      : video && !isTerminal(video)
        ? await markCompleted(video, composed.outputs, composed.duration)
        : undefined;
  if (!done) {
    // Deleted (or failed) while rendering: nothing may keep its files.
    await removeOutputs(composed.outputs);
    if (video) await finishJob(videoRenderJob, video);
    else await videoRenderJob.cleanUpGone?.(ref);
    return null;
  }
  await finishJob(videoRenderJob, done);
  return null;
}

export const Prepare = /* @__PURE__ */ jobStep(videoRenderJob, 'Prepare', prepare);
export const SynthesizeSpeech = /* @__PURE__ */ jobStep(videoRenderJob, 'SynthesizeSpeech', (input) =>
  synthesizeSpeech(input, input.prepared),
);
export const Compose = /* @__PURE__ */ jobStep(videoRenderJob, 'Compose', (input) =>
  compose(input, input.prepared, input.speech),
);
export const ComposeChunk = /* @__PURE__ */ jobStep(videoRenderJob, 'ComposeChunk', async (input) => {
  // A video deleted or ended meanwhile needs no more pictures; JoinChunks finds it so too.
  if (!(await liveVideo(input))) return null;
  await composeChunk(input, input.composition_key, input.chunk, chunkedComposition());
  return null;
});
export const JoinChunks = /* @__PURE__ */ jobStep(videoRenderJob, 'JoinChunks', (input) =>
  joinChunked(input, input.plan),
);
export const Finalize = /* @__PURE__ */ jobStep(videoRenderJob, 'Finalize', (input) =>
  finalize(input, input.composed),
);
