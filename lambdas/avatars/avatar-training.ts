/**
 * The avatar look job's step (avatar-training-job.ts): Train, in the media container on AWS.
 *
 * Every look ends as one of two presenters the video render knows (avatar-records.ts, `LookPresenter`):
 * - a **portrait** with its mouth and blink sprites, stacked in one sheet like the stock looks':
 *   - `photo`: the face is found with landmarks and the photo's own mouth and eyes are warped into
 *     sprites (vision/photo-presenter.ts); the person is cut out too (vision/segmentation.ts), for
 *     videos with their own background. A photo without one usable face fails the look with the reason.
 *   - `prompt`: with an image model configured (Nova Canvas), a generated photo, then as `photo`;
 *     otherwise a presenter drawn by the project's portrait generator from the prompt's words
 *     (catalog/prompt-appearance.ts), the same prompt giving the same presenter.
 *   - `look_pack`: a variation of a look of the workspace (look-packs.ts): a framing or a backdrop of a
 *     photo look, then as `photo`; an outfit or setting of a drawn look, drawn again.
 * - **footage**: a digital twin's video is cut to its steadiest stretch with the mouth at rest, played
 *   forward and back so it loops without a jump, with sprites from its first frame
 *   (vision/twin-footage.ts).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { drawnLookFromPrompt } from '../catalog/drawn-looks.js';
import type { DrawnLook } from '../catalog/look-appearance.js';
import { renderDrawnPresenter } from '../catalog/render-drawn.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { generationEngine, imageGenerationConfigured } from '../engines/generation/index.js';
import { preparePhotoPresenter, STILL_REASONS, type StillReason } from '../engines/vision/photo-presenter.js';
import { cutOutPerson, NO_PERSON_COVERAGE } from '../engines/vision/segmentation.js';
import { prepareTwinFootage } from '../engines/vision/twin-footage.js';
import { finishJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { downloadMediaObject, readMediaObject } from '../media/media-store.js';
import {
  type AvatarLookRecord,
  completeLookRecord,
  getLookRecord,
  LOOK_ORIGINS,
  LOOK_STATUS,
  type LookPresenter,
} from './avatar-records.js';
import { AVATAR_FAILURE, avatarTrainingJob, type LookRef } from './avatar-training-job.js';
import {
  backdropSvg,
  MAX_LOOK_IMAGE_SIDE,
  packSpriteSheet,
  previewJpeg,
  storeLookFile,
  variationImage,
} from './look-media.js';

type MadeLook = Parameters<typeof completeLookRecord>[1];

const STILL_FAILURES: Readonly<Record<StillReason, string>> = {
  [STILL_REASONS.noFace]: AVATAR_FAILURE.noFace,
  [STILL_REASONS.severalFaces]: AVATAR_FAILURE.multipleFaces,
  [STILL_REASONS.faceTooSmall]: AVATAR_FAILURE.faceTooSmall,
  [STILL_REASONS.faceCutOff]: AVATAR_FAILURE.faceCutOff,
};

/** A picture upright and at most `MAX_LOOK_IMAGE_SIDE`, or `invalid_media` when it is not one. */
async function uprightPicture(picture: Uint8Array, what: string): Promise<Buffer> {
  try {
    return await sharp(picture)
      .rotate()
      .resize({
        width: MAX_LOOK_IMAGE_SIDE,
        height: MAX_LOOK_IMAGE_SIDE,
        fit: 'inside',
        withoutEnlargement: true,
      })
      .png()
      .toBuffer();
  } catch (error) {
    throw new JobFailure(
      AVATAR_FAILURE.invalidMedia,
      `${what} cannot be read as a picture (png or jpeg): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** A talking photo look: landmarks, sprites, the person cut out, a preview. */
async function photoLook(look: AvatarLookRecord, picture: Uint8Array, engine: string): Promise<MadeLook> {
  const upright = await uprightPicture(picture, 'The photo');
  const prepared = await preparePhotoPresenter(upright);
  if (prepared.kind === 'still') {
    throw new JobFailure(STILL_FAILURES[prepared.reason], prepared.message);
  }
  const ws = look.workspace_id;
  const sheet = await packSpriteSheet(
    Object.entries(prepared.sprites).map(([sprite, { png, box }]) => ({
      sprite: sprite as keyof typeof prepared.sprites,
      png,
      box,
    })),
  );
  const cutOut = await cutOutPerson(prepared.image);
  const [imageKey, sheetKey, cutOutKey, previewKey] = await Promise.all([
    sharp(prepared.image)
      .jpeg({ quality: 92 })
      .toBuffer()
      .then((jpeg) => storeLookFile(ws, look.look_id, 'image.jpg', jpeg)),
    storeLookFile(ws, look.look_id, 'sprites.png', sheet.png),
    cutOut.coverage >= NO_PERSON_COVERAGE
      ? storeLookFile(ws, look.look_id, 'person.png', cutOut.png)
      : Promise.resolve(null),
    previewJpeg(prepared.image).then((jpeg) => storeLookFile(ws, look.look_id, 'preview.jpg', jpeg)),
  ]);
  const presenter: LookPresenter = {
    kind: 'portrait',
    image_key: imageKey,
    sprite_sheet: { key: sheetKey, sprites: sheet.sprites },
    cut_out_key: cutOutKey,
    face_box: prepared.face.box,
  };
  return {
    presenter,
    drawn: null,
    preview_key: previewKey,
    preview_video_key: null,
    image_width: prepared.width,
    image_height: prepared.height,
    engine,
    gender: look.gender,
  };
}

/**
 * A presenter drawn by the project's portrait generator. Like a photo look, its picture is the figure in
 * front of its backdrop (what videos on a colour show) and its cut-out is the figure alone (shown over a
 * video's own picture or clip).
 */
async function drawnLook(look: AvatarLookRecord, drawn: DrawnLook, engine: string): Promise<MadeLook> {
  const rendered = await renderDrawnPresenter(drawn);
  const ws = look.workspace_id;
  const picture = await sharp(backdropSvg(drawn.imageWidth, drawn.imageHeight, drawn.appearance.backdrop))
    .composite([{ input: Buffer.from(rendered.portrait) }])
    .jpeg({ quality: 92 })
    .toBuffer();
  const [imageKey, figureKey, sheetKey, previewKey] = await Promise.all([
    storeLookFile(ws, look.look_id, 'image.jpg', picture),
    storeLookFile(ws, look.look_id, 'figure.png', rendered.portrait),
    storeLookFile(ws, look.look_id, 'sprites.png', rendered.spriteSheet),
    previewJpeg(picture).then((jpeg) => storeLookFile(ws, look.look_id, 'preview.jpg', jpeg)),
  ]);
  return {
    presenter: {
      kind: 'portrait',
      image_key: imageKey,
      sprite_sheet: {
        key: sheetKey,
        sprites: rendered.sheet.sprites.map(({ sprite, box, sheetTop }) => ({
          sprite,
          box,
          sheet_top: sheetTop,
        })),
      },
      cut_out_key: figureKey,
    },
    drawn,
    preview_key: previewKey,
    preview_video_key: null,
    image_width: drawn.imageWidth,
    image_height: drawn.imageHeight,
    engine,
    gender: drawn.gender,
  };
}

/** The most common colour of a picture, `#rrggbb` (sharp's histogram of its pixels). */
async function dominantColour(key: string): Promise<string> {
  const { dominant } = await sharp(await readMediaObject(key)).stats();
  return `#${[dominant.r, dominant.g, dominant.b].map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The drawn look of a prompt avatar. With a drawn reference look, the person stays (face, skin, hair,
 * gender) and the prompt dresses and places them; reference pictures colour the garment (the first) and
 * the backdrop (the second).
 */
async function drawnFromPrompt(
  look: AvatarLookRecord,
  reference: AvatarLookRecord | undefined,
): Promise<DrawnLook> {
  const { recognised: _recognised, ...described } = drawnLookFromPrompt(look.prompt ?? '');
  let drawn: DrawnLook = described;
  if (reference?.drawn) {
    const person = reference.drawn;
    drawn = {
      ...described,
      gender: person.gender,
      appearance: {
        ...person.appearance,
        outfit: described.appearance.outfit,
        backdrop: described.appearance.backdrop,
      },
    };
  }
  const [garment, backdrop] = await Promise.all(
    look.reference_keys.slice(0, 2).map((key) => dominantColour(key)),
  );
  if (garment)
    drawn = {
      ...drawn,
      appearance: { ...drawn.appearance, outfit: { ...drawn.appearance.outfit, color: garment } },
    };
  if (backdrop) {
    drawn = {
      ...drawn,
      appearance: { ...drawn.appearance, backdrop: { ...drawn.appearance.backdrop, from: backdrop } },
    };
  }
  return drawn;
}

/** A repeatable seed per prompt: the same prompt asks the image model for the same picture. */
const promptSeed = (prompt: string) =>
  createHash('sha256').update(prompt).digest().readUInt32BE(0) % 2_147_483_646;

/**
 * A prompt look: a generated photo with an image model, a drawn presenter without one. A photo look as
 * the reference (`avatar_id`) is varied instead: the person cut out onto the backdrop of the prompt's
 * setting, trained as a photo again.
 */
async function promptLook(look: AvatarLookRecord): Promise<MadeLook> {
  const prompt = look.prompt ?? '';
  const reference = look.reference_look_id
    ? await getLookRecord(look.workspace_id, look.reference_look_id, true)
    : undefined;
  if (look.reference_look_id && reference?.status !== LOOK_STATUS.completed) {
    throw new JobFailure(
      AVATAR_FAILURE.referenceUnavailable,
      `The reference look ${look.reference_look_id} was deleted or is not completed; create the avatar again with a completed look.`,
    );
  }
  if (reference && !reference.drawn) {
    const { backdrop } = drawnLookFromPrompt(prompt).appearance;
    const picture = await variationImage(reference, { label: 'prompt', backdrop });
    return photoLook(look, picture, 'photo_landmarks (prompt backdrop)');
  }
  if (imageGenerationConfigured() && !reference) {
    const generated = await generationEngine().generateImage({
      prompt: `Photo portrait of ${prompt}. One person, head and shoulders, facing the camera, mouth closed, eyes open, even light.`,
      negativePrompt: 'several people, profile view, sunglasses, hands over the face, text, watermark',
      width: 1280,
      height: 720,
      seed: promptSeed(prompt),
    });
    const image = generated.images[0];
    if (!image)
      throw new JobFailure(AVATAR_FAILURE.engineUnavailable, 'The image model returned no picture.');
    return photoLook(look, image, `${generated.engine} (${generated.model})`);
  }
  return drawnLook(look, await drawnFromPrompt(look, reference), 'drawn_from_prompt');
}

/** A digital twin: the steadiest stretch of the footage, looped, with sprites from its first frame. */
async function twinLook(look: AvatarLookRecord, sourceKey: string): Promise<MadeLook> {
  await mkdir(config().mediaWorkDir, { recursive: true });
  const workDir = await mkdtemp(join(config().mediaWorkDir, `avatar-${look.look_id}-`));
  try {
    const sourcePath = join(workDir, 'source');
    await downloadMediaObject(sourceKey, sourcePath);
    const footage = await prepareTwinFootage(sourcePath, workDir);
    const sheet = await packSpriteSheet(
      Object.entries(footage.sprites).map(([sprite, { png, box }]) => ({
        sprite: sprite as keyof typeof footage.sprites,
        png,
        box,
      })),
    );
    const ws = look.workspace_id;
    const [footageKey, firstFrameKey, sheetKey, previewKey] = await Promise.all([
      readFile(footage.loopPath).then((mp4) => storeLookFile(ws, look.look_id, 'footage.mp4', mp4)),
      storeLookFile(ws, look.look_id, 'first-frame.png', footage.previewPng),
      storeLookFile(ws, look.look_id, 'sprites.png', sheet.png),
      previewJpeg(footage.previewPng).then((jpeg) => storeLookFile(ws, look.look_id, 'preview.jpg', jpeg)),
    ]);
    return {
      presenter: {
        kind: 'footage',
        footage_key: footageKey,
        first_frame_key: firstFrameKey,
        sprite_sheet: { key: sheetKey, sprites: sheet.sprites },
        track: footage.track,
      },
      drawn: null,
      preview_key: previewKey,
      preview_video_key: footageKey,
      image_width: footage.width,
      image_height: footage.height,
      engine: 'twin_footage',
      gender: look.gender,
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** A look-pack look: its variation of the reference look, made as that kind of look is made. */
async function lookPackLook(look: AvatarLookRecord): Promise<MadeLook> {
  const reference = look.reference_look_id
    ? await getLookRecord(look.workspace_id, look.reference_look_id, true)
    : undefined;
  if (reference?.status !== LOOK_STATUS.completed || !reference.presenter || !look.variation) {
    throw new JobFailure(
      AVATAR_FAILURE.referenceUnavailable,
      `The look ${look.reference_look_id} this look varies was deleted or is not completed; generate the looks again from a completed look.`,
    );
  }
  if (look.variation.drawn) return drawnLook(look, look.variation.drawn, 'drawn_variation');
  const picture = await variationImage(reference, look.variation);
  return photoLook(look, picture, `photo_landmarks (${look.variation.label})`);
}

async function makeLook(look: AvatarLookRecord): Promise<MadeLook> {
  switch (look.origin) {
    case LOOK_ORIGINS.photo:
      if (!look.source_key) throw new Error(`Look ${look.look_id} has no photo`);
      return photoLook(look, await readMediaObject(look.source_key), 'photo_landmarks');
    case LOOK_ORIGINS.prompt:
      return promptLook(look);
    case LOOK_ORIGINS.digitalTwin:
      if (!look.source_key) throw new Error(`Look ${look.look_id} has no footage`);
      return twinLook(look, look.source_key);
    case LOOK_ORIGINS.lookPack:
      return lookPackLook(look);
  }
}

async function train(ref: LookRef): Promise<null> {
  const look = await resumeJob(avatarTrainingJob, ref);
  if (!look) return null;
  const done = await completeLookRecord(look, await makeLook(look));
  if (done) await finishJob(avatarTrainingJob, done);
  // Deleted while it trained: what it stored goes too.
  else if (!(await getLookRecord(ref.workspace_id, ref.look_id, true)))
    await avatarTrainingJob.cleanUpGone?.(ref);
  return null;
}

export const Train = /* @__PURE__ */ jobStep(avatarTrainingJob, 'Train', train);
