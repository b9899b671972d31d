/**
 * The media of a workspace's avatar looks: where each file of a look lives, and how a look's sprites
 * become one sheet. Only the avatar training step (media image) imports this module: it loads sharp.
 */
import sharp from 'sharp';
import { mediaKeys } from '../media/media-keys.js';
import { putMediaObject, readMediaObject } from '../media/media-store.js';
import type { AvatarLookRecord, LookVariation, PixelBoxRecord, SpriteSheetRecord } from './avatar-records.js';

/** The files of a look, under its own prefix (deleted with the look). */
export const lookFileKey = (
  workspaceId: string,
  lookId: string,
  file:
    | 'image.jpg'
    | 'figure.png'
    | 'person.png'
    | 'sprites.png'
    | 'preview.jpg'
    | 'footage.mp4'
    | 'first-frame.png',
) => `${mediaKeys.avatarLook(workspaceId, lookId)}${file}`;

export interface SheetSprite {
  sprite: SpriteSheetRecord['sprites'][number]['sprite'];
  /** PNG of `box.width` × `box.height`. */
  png: Uint8Array;
  box: PixelBoxRecord;
}

/**
 * Stacks sprites into one transparent PNG, each at its `sheet_top`, so a render downloads one file per
 * look (the stock catalog's sheets have the same layout).
 */
export async function packSpriteSheet(
  sprites: readonly SheetSprite[],
): Promise<{ png: Buffer; sprites: Omit<SpriteSheetRecord['sprites'][number], never>[] }> {
  let top = 0;
  const placed = sprites.map(({ sprite, box, png }) => {
    const entry = { sprite, box, sheet_top: top, png };
    top += box.height;
    return entry;
  });
  const width = Math.max(1, ...sprites.map(({ box }) => box.width));
  const png = await sharp({
    create: { width, height: Math.max(1, top), channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
  })
    .composite(placed.map((entry) => ({ input: Buffer.from(entry.png), left: 0, top: entry.sheet_top })))
    .png({ compressionLevel: 9 })
    .toBuffer();
  return { png, sprites: placed.map(({ sprite, box, sheet_top }) => ({ sprite, box, sheet_top })) };
}

/** Stores a file of a look in the workspace's media (with its encryption); returns its key. */
export async function storeLookFile(
  workspaceId: string,
  lookId: string,
  file: Parameters<typeof lookFileKey>[2],
  body: Uint8Array,
): Promise<string> {
  const key = lookFileKey(workspaceId, lookId, file);
  const contentType = file.endsWith('.png')
    ? 'image/png'
    : file.endsWith('.jpg')
      ? 'image/jpeg'
      : 'video/mp4';
  await putMediaObject(workspaceId, key, body, contentType);
  return key;
}

/** Longest side of a stored photo look: sharp in 4K videos, and a 12-megapixel photo stays a few MB. */
export const MAX_LOOK_IMAGE_SIDE = 2160;

/** A preview: the picture at most 640 pixels wide, as a JPEG (on white where it is transparent). */
export function previewJpeg(image: Uint8Array): Promise<Buffer> {
  return sharp(image)
    .resize({ width: 640, height: 640, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** A backdrop of `width` × `height`: a radial gradient, lighter (`to`) behind the head, `from` at the edges. */
export function backdropSvg(width: number, height: number, backdrop: { from: string; to: string }): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><radialGradient id="g" cx="0.5" cy="0.35" r="0.85"><stop offset="0" stop-color="${backdrop.to}"/><stop offset="1" stop-color="${backdrop.from}"/></radialGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`,
  );
}

/**
 * Where the face is on a look's picture: the landmarks' box when the look kept it, else from its
 * sprites (the eyes of the blink, the top of the mouth).
 */
function faceOf(
  presenter: Extract<NonNullable<AvatarLookRecord['presenter']>, { kind: 'portrait' }>,
): { x: number; y: number; size: number } | undefined {
  if (presenter.face_box) {
    const box = presenter.face_box;
    return { x: box.x + box.width / 2, y: box.y + box.height / 2, size: box.height };
  }
  const eyes = presenter.sprite_sheet.sprites.find((entry) => entry.sprite === 'blink')?.box;
  const mouth = presenter.sprite_sheet.sprites.find((entry) => entry.sprite === 'rest')?.box;
  if (!eyes || !mouth) return undefined;
  const eyesY = eyes.y + eyes.height / 2;
  // Eyes to the top of the mouth is about a third of a face's height.
  return { x: eyes.x + eyes.width / 2, y: (eyesY + mouth.y) / 2, size: 3 * (mouth.y - eyesY) };
}

/** A crop of `ratio` (width / height) and `height` pixels centred on (x, y), kept inside the picture. */
function cropAround(
  picture: { width: number; height: number },
  centre: { x: number; y: number },
  ratio: number,
  height: number,
): { left: number; top: number; width: number; height: number } {
  let h = Math.min(picture.height, Math.round(height));
  let w = Math.round(h * ratio);
  if (w > picture.width) {
    w = picture.width;
    h = Math.round(w / ratio);
  }
  const left = Math.min(Math.max(0, Math.round(centre.x - w / 2)), picture.width - w);
  const top = Math.min(Math.max(0, Math.round(centre.y - h / 2)), picture.height - h);
  return { left, top, width: w, height: h };
}

/**
 * The picture of a look-pack variation of a photo look: the person on a new backdrop (from the cut-out),
 * then a framing (a close-up, or 9:16 for vertical videos) around the face. The result is trained as a
 * photo again, so its sprites fit it exactly.
 */
export async function variationImage(reference: AvatarLookRecord, variation: LookVariation): Promise<Buffer> {
  const presenter = reference.presenter;
  if (presenter?.kind !== 'portrait') throw new Error(`Look ${reference.look_id} is not a portrait`);
  let picture = await readMediaObject(presenter.image_key);
  const { width = 0, height = 0 } = await sharp(picture).metadata();
  if (variation.backdrop && presenter.cut_out_key) {
    const person = await readMediaObject(presenter.cut_out_key);
    picture = await sharp(backdropSvg(width, height, variation.backdrop))
      .composite([{ input: person }])
      .png()
      .toBuffer();
  }
  const face = faceOf(presenter);
  if (!face || !variation.framing) return picture;
  const crop =
    variation.framing === 'close_up'
      ? cropAround(
          { width, height },
          { x: face.x, y: face.y + face.size * 0.15 },
          width / height,
          face.size * 1.6,
        )
      : cropAround({ width, height }, { x: face.x, y: face.y + face.size * 0.6 }, 9 / 16, height);
  return sharp(picture).extract(crop).png().toBuffer();
}
