/**
 * Is it the same person? Compares the faces of two pictures (a consent video's frames and a twin's
 * footage, an uploaded photo and a look) from their 478-point face meshes (`face-landmarks.ts`) and the
 * colour of their skin. Not a face recogniser: no identity embedding is computed or kept; it tells a
 * different face shape or complexion apart from the same face photographed again at another framing,
 * offset or scale.
 *
 * Geometry: the points of each mesh that a talking, blinking face does not move (the face's outline
 * above the jaw, brows, nose, eye corners, cheeks; not the lips, eyelids, irises or chin) are centred
 * and scaled to unit RMS radius, the second set is rotated onto the first (2-D Procrustes, a similarity
 * transform), and the RMS distance that remains is the shape difference (`geometryDistance`). On
 * our drawn looks it is a weak signal: the same picture at another framing measures 0.01 to 0.17 (the
 * mesh fits stylised faces loosely; median 0.04), different characters 0.02 to 0.3, hence the loose
 * `GEOMETRY_SCALE`; real faces, which the mesh was trained on, should do better (not measured here:
 * the repository holds no photos of real people).
 * Colour: the median colour of small discs on the cheeks and forehead, as chromaticity (r, g over
 * r+g+b, insensitive to how bright the light is) and a quarter of the brightness (`colourDistance`):
 * what tells our drawn characters apart (same look at 4 framings ≤ 0.011, different characters ≥ 0.0075,
 * median 0.11).
 * `similarity` = exp(−(geometry / GEOMETRY_SCALE)² − (colour / COLOUR_SCALE)²), 1 for identical faces;
 * `sameFace` when it is at least `SAME_FACE_THRESHOLD` (chosen from measurements on the stock looks,
 * test/unit/engines/vision/face-similarity.test.ts).
 */
import { spawn } from 'node:child_process';
import { ensureExecutable, ffmpegPath } from '../composition/ffmpeg-binaries.js';
import { fileInput, probeMedia } from '../composition/probe.js';
import { type FaceLandmarks, findFaces, type Point } from './face-landmarks.js';
import { type RawImage, VISION_FAILURE, VisionEngineError } from './human-runtime.js';
import { decodeUpright, FACE_MIN_SCORE } from './photo-presenter.js';

/**
 * Mesh points that stay put while the face talks and blinks: the outline from jaw angle over the
 * forehead to jaw angle (not the chin), brows, the nose, the eye corners and the cheeks.
 */
export const STABLE_MESH_POINTS: readonly number[] = [
  // Outline (silhouette) without the chin below the jaw angles.
  10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
  // Brows.
  70, 63, 105, 66, 107, 336, 296, 334, 293, 300,
  // Nose bridge, tip, wings, base.
  168, 6, 197, 195, 5, 4, 1, 2, 98, 327, 129, 358,
  // Eye corners.
  33, 133, 263, 362,
  // Cheeks.
  50, 280, 117, 346, 205, 425,
];

/** Where the skin colour is read: cheeks below the eyes' and glasses' reach, and the forehead. */
export const SKIN_MESH_POINTS: readonly number[] = [50, 280, 205, 425, 151, 108, 337];
/** Radius of the discs read, as a share of the inter-ocular distance. */
export const SKIN_DISC_RADIUS = 0.08;

/**
 * Shape difference (RMS, unit-radius meshes) at which the geometry alone gives exp(−1). Loose: on our
 * drawn looks the mesh itself moves by up to 0.17 between framings of the same picture (the model
 * fits stylised faces loosely), so shape only weighs in when it differs a lot.
 */
export const GEOMETRY_SCALE = 0.25;
/** Colour difference at which the colour alone gives exp(−1). */
export const COLOUR_SCALE = 0.009;
/**
 * `sameFace` from this similarity up. Measured on the 16 stock looks as photos at 4 framings (whole,
 * centred 60 % crop, offset crop, 40 % JPEG): same look 60 of 63 pairs at or above, different
 * characters 0 of 890 (highest 0.39); the misses are one look with glasses at 40 % size.
 */
export const SAME_FACE_THRESHOLD = 0.4;

export type FaceInput = RawImage | Uint8Array;

export interface FaceComparison {
  /** 0 (nothing alike) to 1 (identical); 0 when a picture has no single face. */
  similarity: number;
  sameFace: boolean;
  /** Why there is nothing to compare: which picture, and what is wrong with it. */
  reason?: { picture: 'a' | 'b'; code: 'no_face' | 'multiple_faces' };
  /** The two parts of the score (absent with `reason`). */
  geometryDistance?: number;
  colourDistance?: number;
}

export interface FaceSignature {
  /** The stable points, centred and scaled to unit RMS radius. */
  shape: Point[];
  /** Mean skin chromaticity (r, g over r+g+b) and brightness (0..1). */
  skin: { r: number; g: number; brightness: number };
  face: FaceLandmarks;
}

async function decoded(input: FaceInput): Promise<RawImage> {
  if (!(input instanceof Uint8Array) || 'width' in input) return input as RawImage;
  return decodeUpright(input, 3, 'The picture');
}

/** The stable points, centred on their mean and scaled to unit RMS radius. */
export function normalisedShape(mesh: readonly Point[]): Point[] {
  const points = STABLE_MESH_POINTS.map((index) => mesh[index] as Point);
  const cx = points.reduce((sum, point) => sum + point.x, 0) / points.length;
  const cy = points.reduce((sum, point) => sum + point.y, 0) / points.length;
  const radius = Math.sqrt(
    points.reduce((sum, point) => sum + (point.x - cx) ** 2 + (point.y - cy) ** 2, 0) / points.length,
  );
  const scale = radius > 0 ? 1 / radius : 1;
  return points.map((point) => ({ x: (point.x - cx) * scale, y: (point.y - cy) * scale }));
}

/**
 * The RMS distance between two normalised shapes once `b` is rotated (and scaled) onto `a` by the
 * best 2-D similarity transform (Procrustes: the rotation from the cross-covariance, closed form).
 */
export function procrustesDistance(a: readonly Point[], b: readonly Point[]): number {
  let dot = 0;
  let cross = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    const p = a[index] as Point;
    const q = b[index] as Point;
    dot += p.x * q.x + p.y * q.y;
    cross += q.x * p.y - q.y * p.x;
    normB += q.x * q.x + q.y * q.y;
  }
  const angle = Math.atan2(cross, dot);
  const scale = normB > 0 ? Math.hypot(dot, cross) / normB : 1;
  const cos = Math.cos(angle) * scale;
  const sin = Math.sin(angle) * scale;
  let sum = 0;
  for (let index = 0; index < a.length; index++) {
    const p = a[index] as Point;
    const q = b[index] as Point;
    sum += (cos * q.x - sin * q.y - p.x) ** 2 + (sin * q.x + cos * q.y - p.y) ** 2;
  }
  return Math.sqrt(sum / a.length);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The median skin colour of discs around `SKIN_MESH_POINTS` (medians: a glasses rim or a strand of hair in a disc does not count). */
function skinColour(image: RawImage, face: FaceLandmarks): FaceSignature['skin'] {
  const eyeDistance = Math.hypot(
    (face.mesh[33] as Point).x - (face.mesh[263] as Point).x,
    (face.mesh[33] as Point).y - (face.mesh[263] as Point).y,
  );
  const radius = Math.max(1, SKIN_DISC_RADIUS * eyeDistance);
  const reds: number[] = [];
  const greens: number[] = [];
  const brightness: number[] = [];
  for (const index of SKIN_MESH_POINTS) {
    const centre = face.mesh[index] as Point;
    for (let y = Math.floor(centre.y - radius); y <= Math.ceil(centre.y + radius); y++) {
      for (let x = Math.floor(centre.x - radius); x <= Math.ceil(centre.x + radius); x++) {
        if (x < 0 || y < 0 || x >= image.width || y >= image.height) continue;
        if ((x - centre.x) ** 2 + (y - centre.y) ** 2 > radius * radius) continue;
        const at = (y * image.width + x) * image.channels;
        const r = image.data[at] as number;
        const g = image.data[at + 1] as number;
        const b = image.data[at + 2] as number;
        const total = r + g + b || 1;
        reds.push(r / total);
        greens.push(g / total);
        brightness.push(total / (3 * 255));
      }
    }
  }
  return { r: median(reds), g: median(greens), brightness: median(brightness) };
}

/** The one face of a picture, as what comparison needs, or why there is none. */
export async function faceSignature(
  input: FaceInput,
): Promise<FaceSignature | { code: 'no_face' | 'multiple_faces' }> {
  const image = await decoded(input);
  const faces = (await findFaces(image)).filter((face) => face.score >= FACE_MIN_SCORE);
  if (faces.length === 0) return { code: 'no_face' };
  if (faces.length > 1) return { code: 'multiple_faces' };
  const face = faces[0] as FaceLandmarks;
  return { shape: normalisedShape(face.mesh), skin: skinColour(image, face), face };
}

/** How alike two signatures are. */
export function compareSignatures(
  a: FaceSignature,
  b: FaceSignature,
): Required<Omit<FaceComparison, 'reason'>> {
  const geometryDistance = procrustesDistance(a.shape, b.shape);
  // Chromaticity counts fully; brightness (the light as much as the skin) a quarter.
  const colourDistance = Math.hypot(
    a.skin.r - b.skin.r,
    a.skin.g - b.skin.g,
    0.25 * (a.skin.brightness - b.skin.brightness),
  );
  const similarity = Math.exp(
    -((geometryDistance / GEOMETRY_SCALE) ** 2) - (colourDistance / COLOUR_SCALE) ** 2,
  );
  return { similarity, sameFace: similarity >= SAME_FACE_THRESHOLD, geometryDistance, colourDistance };
}

/**
 * Compares the one face of each picture (raw pixels or encoded bytes, EXIF orientation applied).
 * A picture without exactly one confident face gives similarity 0 and the reason.
 */
export async function compareFaces(
  a: FaceInput | FaceSignature,
  b: FaceInput | FaceSignature,
): Promise<FaceComparison> {
  const signatures = [] as FaceSignature[];
  for (const [picture, input] of [
    ['a', a],
    ['b', b],
  ] as const) {
    const signature = 'shape' in input ? input : await faceSignature(input);
    if ('code' in signature)
      return { similarity: 0, sameFace: false, reason: { picture, code: signature.code } };
    signatures.push(signature);
  }
  return compareSignatures(signatures[0] as FaceSignature, signatures[1] as FaceSignature);
}

export interface VideoFaceOptions {
  /** Frames looked at, spread evenly over the video. @default 6 */
  frames?: number;
  /** Frames are scaled to at most this long side. @default 960 */
  maxSide?: number;
  /** @default 120_000 */
  timeoutMs?: number;
}

/**
 * The best match in a video (a consent recording) for a reference face: a few frames spread over it
 * are compared and the most similar one counts (the person may turn, talk or leave the picture in
 * some). `reason` is that of the first frame when no frame has one face.
 */
export async function bestFaceInVideo(
  videoPath: string,
  reference: FaceInput | FaceSignature,
  options: VideoFaceOptions = {},
): Promise<FaceComparison & { atSeconds?: number }> {
  const frames = options.frames ?? 6;
  const maxSide = options.maxSide ?? 960;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const referenceSignature = 'shape' in reference ? reference : await faceSignature(reference);
  if ('code' in referenceSignature) {
    return { similarity: 0, sameFace: false, reason: { picture: 'b', code: referenceSignature.code } };
  }
  try {
    await ensureExecutable(ffmpegPath());
  } catch (error) {
    throw new VisionEngineError(
      VISION_FAILURE.engineUnavailable,
      `ffmpeg is not available: ${String(error)}`,
      {
        cause: error,
      },
    );
  }
  let duration: number;
  try {
    duration = (await probeMedia(videoPath, { timeoutMs })).durationSeconds;
  } catch (error) {
    throw new VisionEngineError(VISION_FAILURE.invalidMedia, `cannot read ${videoPath}`, { cause: error });
  }
  let best: (FaceComparison & { atSeconds?: number }) | undefined;
  let firstReason: FaceComparison['reason'];
  for (let index = 0; index < frames; index++) {
    const atSeconds = (duration * (index + 0.5)) / frames;
    const png = await videoFrame(videoPath, atSeconds, maxSide, timeoutMs);
    const comparison = await compareFaces(png, referenceSignature);
    if (comparison.reason) {
      firstReason ??= comparison.reason;
      continue;
    }
    if (!best || comparison.similarity > best.similarity) best = { ...comparison, atSeconds };
  }
  return best ?? { similarity: 0, sameFace: false, ...(firstReason ? { reason: firstReason } : {}) };
}

/** One frame of a video as PNG bytes (ffmpeg to a pipe). */
function videoFrame(
  videoPath: string,
  atSeconds: number,
  maxSide: number,
  timeoutMs: number,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      ffmpegPath(),
      [
        ...['-v', 'error', '-ss', atSeconds.toFixed(3), '-i', fileInput(videoPath), '-frames:v', '1'],
        ...['-vf', `scale='min(${maxSide},iw)':'min(${maxSide},ih)':force_original_aspect_ratio=decrease`],
        ...['-f', 'image2pipe', '-vcodec', 'png', 'pipe:1'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const png = Buffer.concat(chunks);
      if (code !== 0 || png.length === 0) {
        reject(new VisionEngineError(VISION_FAILURE.invalidMedia, `cannot read a frame of ${videoPath}`));
      } else resolve(new Uint8Array(png.buffer, png.byteOffset, png.byteLength));
    });
  });
}
