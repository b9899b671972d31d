/**
 * Faces in a picture and the contours a talking presenter is made from: lips, eyelids and the jaw
 * below the mouth, in the picture's pixels. `findFaces` runs Human's face mesh (`human-runtime.ts`);
 * everything else here is plain geometry on its 478 points, usable without the model (the measures
 * also check rendered videos: is the mouth open in this frame, are the eyes closed).
 *
 * Left and right are the person's own, as in MediaPipe's face mesh: the right eye is on the image's
 * left for a face looking at the camera. Every contour runs from the person's right to their left.
 */

import pLimit from 'p-limit';
import sharp from 'sharp';
import {
  imageTensor,
  type RawImage,
  VISION_FAILURE,
  VisionEngineError,
  visionRuntime,
} from './human-runtime.js';

export interface Point {
  x: number;
  y: number;
}

export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Both lips' outer and inner edges, each from the right mouth corner to the left one (both included). */
export interface LipContours {
  upperOuter: Point[];
  lowerOuter: Point[];
  upperInner: Point[];
  lowerInner: Point[];
}

/** One eye's lid edges, each from its outer corner to its inner corner (both included). */
export interface EyeLids {
  upper: Point[];
  lower: Point[];
  /** The lower edge of the eyebrow above, outer end first: how much lid skin there is above the eye. */
  browLower: Point[];
}

export interface FaceLandmarks {
  /** The detector's confidence, 0..1. */
  score: number;
  /** The face's box in the picture's pixels (may reach past the picture's edges). */
  box: PixelBox;
  lips: LipContours;
  rightEye: EyeLids;
  leftEye: EyeLids;
  /** The face's outline below the mouth, from the right jaw angle over the chin to the left one. */
  jaw: Point[];
  /** Where the nose meets the upper lip: the mouth's warps stay below it. */
  noseBottom: Point;
  /**
   * All `MESH_POINTS` points of the mesh (x, y in the picture's pixels; z dropped), in MediaPipe's
   * order: what face comparison (`face-similarity.ts`) aligns.
   */
  mesh: Point[];
}

/**
 * Indices into MediaPipe's 478-point face mesh (the same as Human's `annotations`, with the corners
 * added to the contours that leave them out, so upper and lower contours pair point by point).
 */
export const MESH_INDICES = {
  lipsUpperOuter: [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291],
  lipsLowerOuter: [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291],
  lipsUpperInner: [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308],
  lipsLowerInner: [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308],
  rightEyeUpper: [33, 246, 161, 160, 159, 158, 157, 173, 133],
  rightEyeLower: [33, 7, 163, 144, 145, 153, 154, 155, 133],
  rightBrowLower: [35, 124, 46, 53, 52, 65],
  leftEyeUpper: [263, 466, 388, 387, 386, 385, 384, 398, 362],
  leftEyeLower: [263, 249, 390, 373, 374, 380, 381, 382, 362],
  leftBrowLower: [265, 353, 276, 283, 282, 295],
  jaw: [58, 172, 136, 150, 149, 176, 148, 152, 377, 400, 378, 379, 365, 397, 288],
  noseBottom: [2],
} as const;

/** The mesh's point count: Human's face mesh with the iris model. */
export const MESH_POINTS = 478;

/** Human finds faces on pictures up to this size; larger ones are scaled down first (landmarks scaled back). */
export const DETECTION_MAX_SIDE = 1280;

/**
 * The landmarks of a face from Human's mesh (`[x, y, z]` per point, in the pixels of the picture the
 * mesh was found on), scaled by `scale` into another picture's pixels.
 */
export function faceFromMesh(
  mesh: readonly (readonly (number | undefined)[])[],
  score: number,
  box: readonly (number | undefined)[],
  scale = 1,
): FaceLandmarks {
  if (mesh.length < MESH_POINTS) {
    throw new VisionEngineError(
      VISION_FAILURE.engineUnavailable,
      `The face mesh has ${mesh.length} points, not ${MESH_POINTS}: the face mesh or iris model did not run.`,
    );
  }
  const point = (index: number): Point => {
    const [x = 0, y = 0] = mesh[index] ?? [];
    return { x: x * scale, y: y * scale };
  };
  const contour = (indices: readonly number[]) => indices.map(point);
  const [boxX = 0, boxY = 0, boxWidth = 0, boxHeight = 0] = box;
  return {
    score,
    box: { x: boxX * scale, y: boxY * scale, width: boxWidth * scale, height: boxHeight * scale },
    lips: {
      upperOuter: contour(MESH_INDICES.lipsUpperOuter),
      lowerOuter: contour(MESH_INDICES.lipsLowerOuter),
      upperInner: contour(MESH_INDICES.lipsUpperInner),
      lowerInner: contour(MESH_INDICES.lipsLowerInner),
    },
    rightEye: {
      upper: contour(MESH_INDICES.rightEyeUpper),
      lower: contour(MESH_INDICES.rightEyeLower),
      browLower: contour(MESH_INDICES.rightBrowLower),
    },
    leftEye: {
      upper: contour(MESH_INDICES.leftEyeUpper),
      lower: contour(MESH_INDICES.leftEyeLower),
      browLower: contour(MESH_INDICES.leftBrowLower),
    },
    jaw: contour(MESH_INDICES.jaw),
    noseBottom: point(MESH_INDICES.noseBottom[0]),
    mesh: Array.from({ length: MESH_POINTS }, (_, index) => point(index)),
  };
}

/**
 * Every face Human finds in the picture, most confident first (at most 3: the runtime's limit, enough
 * to tell a group photo from a portrait). Pictures larger than `DETECTION_MAX_SIDE` are searched on a
 * scaled-down copy: the mesh model sees each face at 192 px anyway, so nothing is lost.
 */
export async function findFaces(image: RawImage): Promise<FaceLandmarks[]> {
  return oneDetectionAtATime(() => detectFaces(image));
}

/**
 * Human keeps per-call state in module-level caches (the face boxes the mesh model crops), so two
 * detections interleaved on one runtime read each other's boxes and lose faces. Jobs share the runtime
 * (several run at once in `npm start`), so every detection in this process waits its turn.
 */
const oneDetectionAtATime = pLimit(1);

async function detectFaces(image: RawImage): Promise<FaceLandmarks[]> {
  const { human, tf } = await visionRuntime();
  const longestSide = Math.max(image.width, image.height);
  const scale = longestSide > DETECTION_MAX_SIDE ? DETECTION_MAX_SIDE / longestSide : 1;
  const searched = scale === 1 ? image : await scaledDown(image, scale);
  const tensor = imageTensor(tf, searched);
  try {
    const result = await human.detect(tensor);
    if (result.error) {
      throw new VisionEngineError(VISION_FAILURE.engineUnavailable, `Face detection failed: ${result.error}`);
    }
    return result.face
      .filter((face) => face.mesh.length >= MESH_POINTS)
      .map((face) => faceFromMesh(face.mesh, face.score, face.box, 1 / scale))
      .sort((a, b) => b.score - a.score);
  } finally {
    tf.dispose(tensor);
  }
}

async function scaledDown(image: RawImage, scale: number): Promise<RawImage> {
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  const { data, info } = await sharp(image.data, {
    raw: { width: image.width, height: image.height, channels: image.channels },
  })
    .resize(width, height, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels === 3 ? 3 : 4 };
}

// ---------------------------------------------------------------------------------------------------
// Measures

export function distance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/**
 * The mean distance between the middle points of two paired contours (`upper[i]` faces `lower[i]`):
 * the three around the centre, where an opening is widest and the mesh most reliable.
 */
function middleGap(upper: readonly Point[], lower: readonly Point[]): number {
  const middle = Math.floor(upper.length / 2);
  let total = 0;
  for (const index of [middle - 1, middle, middle + 1]) {
    const top = upper[index];
    const bottom = lower[index];
    if (top && bottom) total += distance(top, bottom);
  }
  return total / 3;
}

function endsApart(contour: readonly Point[]): number {
  const first = contour[0];
  const last = contour.at(-1);
  return first && last ? distance(first, last) : 0;
}

/** Corner to corner along the lips' outer edge, in pixels. */
export function mouthWidth(face: FaceLandmarks): number {
  return endsApart(face.lips.upperOuter);
}

/** The gap between the inner lip edges at the middle ÷ the mouth's width: about 0 closed, 0.3+ wide open. */
export function mouthOpening(face: FaceLandmarks): number {
  const width = mouthWidth(face);
  return width > 0 ? middleGap(face.lips.upperInner, face.lips.lowerInner) / width : 0;
}

/** One eye's lid gap at the middle ÷ its width (corner to corner). */
export function eyelidOpening(eye: EyeLids): number {
  const width = endsApart(eye.upper);
  return width > 0 ? middleGap(eye.upper, eye.lower) / width : 0;
}

/** The lid gap ÷ the eye's width, mean of both eyes: about 0.3 open, under 0.1 closed. */
export function eyeOpening(face: FaceLandmarks): number {
  return (eyelidOpening(face.rightEye) + eyelidOpening(face.leftEye)) / 2;
}
