/**
 * Lips re-animated over arbitrary footage: a video whose speakers said one thing is made to mouth new
 * speech (dubbing: the new language's viseme track; lipsync: a replaced audio's). Every frame inside
 * the spans to re-animate gets the mouth of every usable face in it warped, from the shape it has in
 * the recording to the shape of the new speech at that moment (`feature-warps.ts`, the photo
 * presenter's warps, with the recorded mouth as the "photo"): an open recorded mouth is closed for
 * `rest` and `closed`, a closed one opened for the open visemes, and the chin follows. There is one new
 * speech and no telling who says it (no speaker diarisation): every face mouths the same words. Faces
 * that cannot be re-animated, and frames without any, keep their mouths and are counted.
 *
 * How (two passes over the video, each a decoder on a pipe; nothing but the mouths is touched):
 * 1. ffmpeg decodes the frames around the spans, scaled to at most `analysisMaxSide`, and faces are
 *    searched for on every `round(fps / detectFps)`-th (`findFaces`, at most 3 a picture): each
 *    confident face is usable if it is large enough, its mouth and chin are in the picture and it faces
 *    the camera (`assessFaces`), and each joins the track of the face whose mouth was nearest on the
 *    searches before (`FaceTracker`: one per person, across detector misses of up to `faceMemoryMs`;
 *    only a lone miss is interpolated over). Each frame between two of a track's usable detections is
 *    compared with both (`mouthLikeness`: its lower face, moved with the head): how far its mouth is
 *    from the first's look towards the second's;
 * 2. ffmpeg decodes every frame at its own size as RGBA; each track's landmarks on a frame are those of
 *    its detections around it, interpolated (`faceAtFrame`: a lone miss between two found faces is
 *    bridged; the lips and jaw by looks, placed by the head's interpolated position), the new speech's
 *    mouth shape at the frame's time is a blend of the visemes around it (`blendedMouth`, a triangular
 *    window of `transitionMs`, so shapes glide from one to the next), each face's mouth is warped into
 *    it (each with its own running lip thickness, `SteadyLips`) and pasted with the warp's own alpha (no
 *    seams), faded in and out over `spanFadeMs` at the spans' edges; where two mouths' boxes would
 *    overlap only the wider face's is warped (`TracksAtFrame`); a second ffmpeg encodes the frames from
 *    its stdin (H.264 yuv420p, the source's size and frame rate).
 *
 * The result has no audio: the caller muxes the new speech (the source's is what is being replaced).
 * docs/architecture.md, "Engines" ("Lips over footage"), has the measured speed.
 *
 * Limits: a mouth that changes gradually between detections gets interpolated contours, a mouth that
 * looks like neither detection (a third shape in between) the nearer in looks; every face mouths the
 * same speech (the one speaking or not); at most 3 faces a picture are found (the face model's
 * `maxDetected`, `human-runtime.ts`); the inside of an opened mouth is drawn, not the person's own;
 * profiles and faces under 64 px are left alone; the frames go through RGB, so chroma is resampled
 * (about 1.5/255 on coloured edges everywhere).
 */
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { rawFrames } from '../composition/ffmpeg-binaries.js';
import { fileInput } from '../composition/probe.js';
import { normalizeVisemeCues, type Viseme, type VisemeCue, visemeAt } from '../speech/visemes.js';
import { type FaceLandmarks, findFaces, mouthWidth, type PixelBox, type Point } from './face-landmarks.js';
import {
  areaBox,
  type FeatureArea,
  MOUTH_SHAPES,
  type MouthGeometry,
  type MouthShape,
  mouthArea,
  mouthGeometry,
  type RgbaImage,
  renderMouthSprite,
  smoothedContour,
} from './feature-warps.js';
import { VISION_FAILURE, VisionEngineError } from './human-runtime.js';
import { FACE_MIN_SCORE, FACE_MIN_WIDTH_PIXELS, FACE_MIN_WIDTH_SHARE } from './photo-presenter.js';
import {
  type Child,
  frameEncoder,
  probeVideo,
  runnable,
  type VideoStreamInfo,
  watch,
} from './segmentation.js';
import { fittedSize, scaleFace } from './twin-footage.js';

// ---------------------------------------------------------------------------------------------------
// Options and results

/** A stretch of the video to re-animate, ms from its start (end exclusive). */
export interface LipSpan {
  startMs: number;
  endMs: number;
}

export interface ReanimateLipsOptions {
  /**
   * Faces are searched for on this many frames per second (every `round(fps / detectFps)`-th frame);
   * the frames between are interpolated, their mouths by looks (`mouthLikeness`). Every frame: set it
   * to the video's rate. @default 8
   */
  detectFps?: number;
  /**
   * A face missing from the searches for up to this long and found again where it was is the same face
   * (`FaceTracker`: counted once in `faces.tracks`, its lips' thickness kept); the frames between are
   * interpolated only across a lone missed search. @default 1000
   */
  faceMemoryMs?: number;
  /** Frames are searched for faces scaled down to at most this long side. @default 640 */
  analysisMaxSide?: number;
  /** Mouth shapes blend over a triangular window this long around each frame. @default 100 */
  transitionMs?: number;
  /** The re-animation fades in and out over this long at a span's edges (not at the video's). @default 80 */
  spanFadeMs?: number;
  /** x264 quality of the output. @default 18 */
  x264Crf?: number;
  /** @default 'veryfast' */
  x264Preset?: string;
  /**
   * The whole run is abandoned after this long (about 1 to 2 s per second of 640×360 video, 2 to 4 s
   * at 1280×720, on 2 cores). @default 1_800_000
   */
  timeoutMs?: number;
}

export const LIPS_DEFAULTS: Readonly<Required<ReanimateLipsOptions>> = {
  detectFps: 8,
  faceMemoryMs: 1000,
  analysisMaxSide: 640,
  transitionMs: 100,
  spanFadeMs: 80,
  x264Crf: 18,
  x264Preset: 'veryfast',
  timeoutMs: 1_800_000,
};

export interface ReanimateLipsInput {
  /** Any video ffmpeg reads. */
  videoPath: string;
  /** The new speech's mouth shapes, ms from the video's start (normalised here: gaps are `rest`). */
  visemes: readonly VisemeCue[];
  /** Where to re-animate; @default the whole video. */
  spans?: readonly LipSpan[];
  /** Where the output (`lips.mp4`) is written. */
  workDir: string;
  options?: ReanimateLipsOptions;
}

/**
 * Why a face inside a span kept its recorded mouth: no confident face (a frame without any); the face
 * under `FACE_MIN_WIDTH_PIXELS` or `FACE_MIN_WIDTH_SHARE` of the shorter side wide; its lips, chin or
 * nose outside the picture; turned too far from the camera (`headTurn` above `MAX_HEAD_TURN`), where a
 * frontal mouth's warp would show; or its mouth's box overlapping a wider face's, which is re-animated
 * (`TracksAtFrame`).
 */
export const LIP_SKIP_REASONS = {
  noFace: 'no_face',
  faceTooSmall: 'face_too_small',
  faceCutOff: 'face_cut_off',
  faceTurned: 'face_turned',
  mouthsOverlap: 'mouths_overlap',
} as const;
export type LipSkipReason = (typeof LIP_SKIP_REASONS)[keyof typeof LIP_SKIP_REASONS];

export interface ReanimatedLips {
  /**
   * H.264 yuv420p mp4 without audio: the source's size (an odd side loses its last pixel row or
   * column), frame rate and frame count (a variable frame rate becomes its average, as in
   * `segmentVideo`).
   */
  videoPath: string;
  width: number;
  height: number;
  frames: number;
  frameRate: number;
  faces: {
    /** Frames inside the spans. */
    framesInSpans: number;
    /** Frames inside the spans with a confident face (usable or not). */
    framesWithFace: number;
    /** Frames with at least one mouth warped to the new speech. */
    framesReanimated: number;
    /** Frames inside the spans left as they were (no face re-animated)... */
    framesSkipped: number;
    /** ...and why: `no_face`, or the reason of the widest face found. */
    reasons: Partial<Record<LipSkipReason, number>>;
    /**
     * Faces (tracks, `FaceTracker`) re-animated on at least one frame: a face lost by the detector for
     * longer than `faceMemoryMs`, or found again elsewhere, counts again.
     */
    tracks: number;
    /** Mouths warped, summed over the frames (`framesReanimated` when there is one face). */
    facesReanimated: number;
    /** Faces found inside the spans that kept their recorded mouths, summed over the frames, by reason (never `no_face`). */
    facesKept: Partial<Record<LipSkipReason, number>>;
  };
  /** Where the time went (wall clock; `detectionMs` and `warpMs` on this thread). */
  timings: { totalMs: number; detections: number; detectionMs: number; warpMs: number };
}

// ---------------------------------------------------------------------------------------------------
// Faces

export type FaceChoice = { face: FaceLandmarks } | { reason: LipSkipReason; found: boolean };

/** A confident face found on a searched frame, and why it must keep its recorded mouth (none: it need not). */
export interface FoundFace {
  face: FaceLandmarks;
  reason?: LipSkipReason;
}

/**
 * How far the head is turned sideways: the nose tip's offset from the middle of the eyes' outer
 * corners, along the line between them, ÷ their distance. About 0 facing the camera; with the tip
 * some 0.55 of that distance in front of the eyes, 0.55 × tan(yaw): 0.26 at 25°, 0.38 at 35°.
 */
export function headTurn(face: FaceLandmarks): number {
  const right = face.mesh[33];
  const left = face.mesh[263];
  const nose = face.mesh[1];
  if (!right || !left || !nose) return 0;
  const across = { x: left.x - right.x, y: left.y - right.y };
  const squared = across.x ** 2 + across.y ** 2;
  if (squared === 0) return 0;
  const middle = { x: (right.x + left.x) / 2, y: (right.y + left.y) / 2 };
  return Math.abs(((nose.x - middle.x) * across.x + (nose.y - middle.y) * across.y) / squared);
}

/** Heads turned further than this (`headTurn`, about 29°) keep their recorded mouths. */
export const MAX_HEAD_TURN = 0.3;

/**
 * Every confident face among those found, the largest first (the nearest the picture's centre among
 * equals), each with why it cannot be re-animated if it cannot: under `FACE_MIN_WIDTH_PIXELS` or
 * `FACE_MIN_WIDTH_SHARE` of the shorter side wide, its lips, chin or nose outside the picture, or
 * turned from the camera further than `MAX_HEAD_TURN`. Faces under `FACE_MIN_SCORE` are not faces.
 */
export function assessFaces(faces: readonly FaceLandmarks[], width: number, height: number): FoundFace[] {
  const offCentre = (face: FaceLandmarks) =>
    Math.hypot(face.box.x + face.box.width / 2 - width / 2, face.box.y + face.box.height / 2 - height / 2);
  const minimumWidth = Math.max(FACE_MIN_WIDTH_PIXELS, FACE_MIN_WIDTH_SHARE * Math.min(width, height));
  const inside = (point: Point) => point.x >= 0 && point.y >= 0 && point.x <= width && point.y <= height;
  const reasonOf = (face: FaceLandmarks): LipSkipReason | undefined => {
    if (face.box.width < minimumWidth) return LIP_SKIP_REASONS.faceTooSmall;
    const chin = face.jaw[Math.floor(face.jaw.length / 2)] as Point;
    if (![...face.lips.upperOuter, ...face.lips.lowerOuter, chin, face.noseBottom].every(inside)) {
      return LIP_SKIP_REASONS.faceCutOff;
    }
    if (headTurn(face) > MAX_HEAD_TURN) return LIP_SKIP_REASONS.faceTurned;
    return undefined;
  };
  return faces
    .filter((face) => face.score >= FACE_MIN_SCORE)
    .sort((a, b) => b.box.width - a.box.width || offCentre(a) - offCentre(b))
    .map((face) => {
      const reason = reasonOf(face);
      return reason ? { face, reason } : { face };
    });
}

/** A searched frame: its index and what one face's track holds there (`FaceTrack`). */
export interface Detection {
  frame: number;
  choice: FaceChoice;
}

/**
 * Where the head is: the middle of the four eye corners, which talking does not move, so a mouth's
 * shape can be taken from one detection and its place from another.
 */
function anchorOf(face: FaceLandmarks): Point {
  const corners = [
    face.rightEye.upper[0],
    face.rightEye.upper.at(-1),
    face.leftEye.upper[0],
    face.leftEye.upper.at(-1),
  ] as Point[];
  return {
    x: corners.reduce((sum, point) => sum + point.x, 0) / corners.length,
    y: corners.reduce((sum, point) => sum + point.y, 0) / corners.length,
  };
}

/**
 * What re-animation keeps of a detected face: the box, the lips, the jaw, the nose's base and the eye
 * corners; the mesh and the lids are dropped (an hour of video at 8 detections a second holds about
 * 29 000 faces until the second pass).
 */
export function compactFace(face: FaceLandmarks): FaceLandmarks {
  const corners = (eye: FaceLandmarks['rightEye']) => ({
    upper: [eye.upper[0] as Point, eye.upper.at(-1) as Point],
    lower: [],
    browLower: [],
  });
  return {
    score: face.score,
    box: face.box,
    lips: face.lips,
    rightEye: corners(face.rightEye),
    leftEye: corners(face.leftEye),
    jaw: face.jaw,
    noseBottom: face.noseBottom,
    mesh: [],
  };
}

function mixPoints(a: readonly Point[], b: readonly Point[], weight: number): Point[] {
  return a.map((point, index) => {
    const other = b[index] ?? point;
    return { x: point.x + (other.x - point.x) * weight, y: point.y + (other.y - point.y) * weight };
  });
}

/**
 * The landmarks `weight` (0..1) of the way from `a` to `b`, point by point. With `mouthWeight`, the
 * lips and the jaw take their shape that far from `a` to `b` instead (placed relative to the head,
 * which still moves by `weight`): a mouth that snapped open between two detections looks like one of
 * them, not like a mouth half open.
 */
export function mixFaces(
  a: FaceLandmarks,
  b: FaceLandmarks,
  weight: number,
  mouthWeight = weight,
): FaceLandmarks {
  const mix = (x: number, y: number) => x + (y - x) * weight;
  const eye = (from: FaceLandmarks['rightEye'], to: FaceLandmarks['rightEye']) => ({
    upper: mixPoints(from.upper, to.upper, weight),
    lower: mixPoints(from.lower, to.lower, weight),
    browLower: mixPoints(from.browLower, to.browLower, weight),
  });
  const anchorA = anchorOf(a);
  const anchorB = anchorOf(b);
  // The head's move from a's place, and the shift that puts b's mouth there.
  const head = { x: (anchorB.x - anchorA.x) * weight, y: (anchorB.y - anchorA.y) * weight };
  const mouth = (from: readonly Point[], to: readonly Point[]) =>
    mixPoints(
      from,
      to.map((point) => ({ x: point.x - anchorB.x + anchorA.x, y: point.y - anchorB.y + anchorA.y })),
      mouthWeight,
    ).map((point) => ({ x: point.x + head.x, y: point.y + head.y }));
  return {
    score: Math.min(a.score, b.score),
    box: {
      x: mix(a.box.x, b.box.x),
      y: mix(a.box.y, b.box.y),
      width: mix(a.box.width, b.box.width),
      height: mix(a.box.height, b.box.height),
    },
    lips: {
      upperOuter: mouth(a.lips.upperOuter, b.lips.upperOuter),
      lowerOuter: mouth(a.lips.lowerOuter, b.lips.lowerOuter),
      upperInner: mouth(a.lips.upperInner, b.lips.upperInner),
      lowerInner: mouth(a.lips.lowerInner, b.lips.lowerInner),
    },
    rightEye: eye(a.rightEye, b.rightEye),
    leftEye: eye(a.leftEye, b.leftEye),
    jaw: mouth(a.jaw, b.jaw),
    noseBottom: mixPoints([a.noseBottom], [b.noseBottom], weight)[0] as Point,
    mesh: mixPoints(a.mesh, b.mesh, weight),
  };
}

function mouthCentre(face: FaceLandmarks): Point {
  const right = face.lips.upperOuter[0] as Point;
  const left = face.lips.upperOuter.at(-1) as Point;
  return { x: (right.x + left.x) / 2, y: (right.y + left.y) / 2 };
}

/**
 * The face on `frame`, from the detections (ordered by frame, `step` frames apart): interpolated
 * between the usable detections before and after it when they are at most two steps apart (a lone
 * `no_face` between them is a detector miss) and show the same face (mouths less than a mouth's width
 * apart), the mouth by `mouthWeights` when it has the frame (`mouthLikeness`); else the nearer usable
 * one within half a step (a whole step past the last detection); else the reason of the nearest
 * detection. Pure, for tests.
 */
export function faceAtFrame(
  detections: readonly Detection[],
  frame: number,
  step: number,
  mouthWeights?: ReadonlyMap<number, number>,
): FaceChoice {
  // Only detections within two steps matter: find the first of them.
  let low = 0;
  let high = detections.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((detections[middle] as Detection).frame < frame - 2 * step) low = middle + 1;
    else high = middle;
  }
  let before: Detection | undefined;
  let after: Detection | undefined;
  let nearest: Detection | undefined;
  for (let index = low; index < detections.length; index++) {
    const detection = detections[index] as Detection;
    if (detection.frame > frame + 2 * step) break;
    if (!nearest || Math.abs(detection.frame - frame) < Math.abs(nearest.frame - frame)) {
      nearest = detection;
    }
    if (!('face' in detection.choice)) continue;
    if (detection.frame <= frame) before = detection;
    if (detection.frame >= frame && !after) after = detection;
  }
  const from = before && 'face' in before.choice ? before.choice.face : undefined;
  const to = after && 'face' in after.choice ? after.choice.face : undefined;
  if (before && after && from && to) {
    if (before.frame === after.frame) return { face: from };
    const bridged = detections
      .slice(low, low + 8)
      .filter((d) => d.frame > before.frame && d.frame < after.frame);
    const apart = Math.hypot(
      mouthCentre(from).x - mouthCentre(to).x,
      mouthCentre(from).y - mouthCentre(to).y,
    );
    if (
      after.frame - before.frame <= 2 * step &&
      apart < mouthWidth(from) &&
      bridged.every((d) => 'reason' in d.choice && d.choice.reason === LIP_SKIP_REASONS.noFace)
    ) {
      const weight = (frame - before.frame) / (after.frame - before.frame);
      return { face: mixFaces(from, to, weight, mouthWeights?.get(frame) ?? weight) };
    }
  }
  const last = detections.at(-1);
  const reach = (detection: Detection) => (detection === last && frame > detection.frame ? step : step / 2);
  let closest: FaceLandmarks | undefined;
  let closestDistance = Number.POSITIVE_INFINITY;
  for (const [detection, face] of [
    [before, from],
    [after, to],
  ] as const) {
    if (!detection || !face) continue;
    const away = Math.abs(detection.frame - frame);
    if (away <= reach(detection) && away < closestDistance) {
      closest = face;
      closestDistance = away;
    }
  }
  if (closest) return { face: closest };
  if (nearest && 'reason' in nearest.choice) return nearest.choice;
  return { reason: LIP_SKIP_REASONS.noFace, found: false };
}

/**
 * One face followed from search to search: a `Detection` for each search from the one that first
 * found it to the one after it was last seen (its face there, usable or with why not, or `no_face` for
 * a search that missed it), as `faceAtFrame` reads them.
 */
export interface FaceTrack {
  id: number;
  detections: Detection[];
  /** The widest box it had (px): a frame none of whose faces is re-animated is counted under the widest's reason. */
  width: number;
  /** How each frame between two of its usable detections has its mouth (`mouthLikeness`), by frame. */
  mouthWeights: Map<number, number>;
}

/**
 * Sorts the faces of successive searches into tracks, one per person: a face joins the track whose
 * last face had its mouth nearest, less than that mouth's width away (`faceAtFrame`'s test of the same
 * face), each track taking at most one face of a search, the nearest pairs first. A track missed by
 * searches stays open for `memoryFrames` after its last face (at least two steps: a lone detector miss
 * is bridged by `faceAtFrame`; longer gaps are not interpolated, but the face found again is the same
 * track, so a detector that loses a face now and then does not multiply the faces counted); then it
 * ends, and a face found there later starts a new track. Two faces crossing each other: while their
 * mouths are near, their mouth boxes overlap and only the wider is re-animated (`TracksAtFrame`), and
 * they may come out of it on each other's tracks, which swaps only their running lip thickness
 * (`SteadyLips`) for a few frames. Pure, for tests.
 */
export class FaceTracker {
  private readonly tracks: FaceTrack[] = [];
  /** Tracks still open, with the last face and frame each was seen at. */
  private open: { track: FaceTrack; face: FaceLandmarks; frame: number }[] = [];

  private readonly memoryFrames: number;

  /** `step`: frames between searches; `memoryFrames`: how long a track missed by the searches stays open. */
  constructor(step: number, memoryFrames = 2 * step) {
    this.memoryFrames = Math.max(2 * step, memoryFrames);
  }

  /** Adds one search's faces (`assessFaces`); answers the track each joined, in their order. */
  add(frame: number, found: readonly FoundFace[]): FaceTrack[] {
    const pairs: { open: number; face: number; distance: number }[] = [];
    this.open.forEach((candidate, open) => {
      const reach = mouthWidth(candidate.face);
      const centre = mouthCentre(candidate.face);
      found.forEach(({ face }, index) => {
        const here = mouthCentre(face);
        const distance = Math.hypot(here.x - centre.x, here.y - centre.y) / reach;
        if (distance < 1) pairs.push({ open, face: index, distance });
      });
    });
    pairs.sort((a, b) => a.distance - b.distance);
    const trackOfFace = new Array<FaceTrack | undefined>(found.length);
    const taken = new Set<number>();
    for (const pair of pairs) {
      if (taken.has(pair.open) || trackOfFace[pair.face]) continue;
      taken.add(pair.open);
      trackOfFace[pair.face] = (this.open[pair.open] as (typeof this.open)[number]).track;
    }
    const stillOpen: typeof this.open = [];
    this.open.forEach((candidate, open) => {
      if (taken.has(open)) return;
      candidate.track.detections.push({ frame, choice: { reason: LIP_SKIP_REASONS.noFace, found: false } });
      if (frame - candidate.frame < this.memoryFrames) stillOpen.push(candidate);
    });
    this.open = stillOpen;
    return found.map(({ face, reason }, index) => {
      let track = trackOfFace[index];
      if (!track) {
        track = { id: this.tracks.length, detections: [], width: 0, mouthWeights: new Map() };
        this.tracks.push(track);
      }
      track.detections.push({ frame, choice: reason ? { reason, found: true } : { face } });
      track.width = Math.max(track.width, face.box.width);
      this.open.push({ track, face, frame });
      return track;
    });
  }

  /** Every track so far, in the order their faces were first found. */
  all(): readonly FaceTrack[] {
    return this.tracks;
  }
}

// ---------------------------------------------------------------------------------------------------
// Mouth shapes

/**
 * The mouth of each viseme over footage: the photo presenter's shapes (`MOUTH_SHAPES`), except that
 * every opening is exactly the shape's (the recorded mouth's own opening is taken out first, whatever
 * the old speech had it doing), and `rest` is a relaxed closed mouth (lips together, not pressed).
 */
export const FOOTAGE_MOUTHS: Readonly<Record<Viseme, MouthShape>> = {
  rest: { ...MOUTH_SHAPES.closed, upperLipThickness: 1, lowerLipThickness: 1 },
  closed: MOUTH_SHAPES.closed,
  open_small: { ...MOUTH_SHAPES.open_small, opensFromPhoto: false },
  open_wide: { ...MOUTH_SHAPES.open_wide, opensFromPhoto: false },
  rounded: { ...MOUTH_SHAPES.rounded, opensFromPhoto: false },
  spread: { ...MOUTH_SHAPES.spread, opensFromPhoto: false },
  lip_teeth: { ...MOUTH_SHAPES.lip_teeth, opensFromPhoto: false },
};

/** Fields blended by each viseme's weight. */
const SHAPE_FIELDS = [
  'opening',
  'widthScale',
  'upperLipRaise',
  'upperLipThickness',
  'lowerLipThickness',
  'jawFollow',
] as const;
/** Fields that describe the opening itself: blended by weight × opening (closed mouths have none). */
const OPENING_FIELDS = ['openingSpan', 'upperTeeth', 'lowerTeeth', 'teethVisibility'] as const;

/** How many points of the track a blended mouth reads (even: symmetric about the frame's time). */
const BLEND_SAMPLES = 8;

/**
 * The mouth at `timeMs` of a normalised track: the visemes within `transitionMs / 2` either side,
 * weighted by a triangle peaking at `timeMs`, their shapes' numbers averaged (the opening's own by the
 * opening's weight), the opening's profile the heaviest open viseme's. Pure, for tests.
 */
export function blendedMouth(track: readonly VisemeCue[], timeMs: number, transitionMs: number): MouthShape {
  const weights = new Map<Viseme, number>();
  const half = transitionMs / 2;
  if (half <= 0) {
    weights.set(visemeAt(track, timeMs), 1);
  } else {
    for (let index = 0; index < BLEND_SAMPLES; index++) {
      // The middles of equal slices of [-1, 1]: a change at `timeMs` weighs both sides alike.
      const x = (2 * index + 1) / BLEND_SAMPLES - 1;
      const viseme = visemeAt(track, timeMs + x * half);
      weights.set(viseme, (weights.get(viseme) ?? 0) + 1 - Math.abs(x));
    }
  }
  const blended: MouthShape = { ...FOOTAGE_MOUTHS.rest };
  let total = 0;
  let openTotal = 0;
  for (const field of SHAPE_FIELDS) blended[field] = 0;
  for (const field of OPENING_FIELDS) blended[field] = 0;
  let heaviestOpen = 0;
  for (const [viseme, weight] of weights) {
    const shape = FOOTAGE_MOUTHS[viseme];
    total += weight;
    for (const field of SHAPE_FIELDS) blended[field] += weight * shape[field];
    const openWeight = weight * shape.opening;
    openTotal += openWeight;
    for (const field of OPENING_FIELDS) blended[field] += openWeight * shape[field];
    if (openWeight > heaviestOpen) {
      heaviestOpen = openWeight;
      blended.openingProfile = shape.openingProfile;
    }
  }
  for (const field of SHAPE_FIELDS) blended[field] /= total;
  for (const field of OPENING_FIELDS) {
    blended[field] = openTotal > 0 ? blended[field] / openTotal : FOOTAGE_MOUTHS.rest[field];
  }
  return blended;
}

/**
 * How much of the warp shows at `timeMs`: 1 inside a span, ramping linearly over `fadeMs` centred on
 * its edges (none at a start at 0 or an open end), the strongest span's. Pure, for tests.
 */
export function spanStrength(spans: readonly LipSpan[], timeMs: number, fadeMs: number): number {
  let strength = 0;
  for (const span of spans) {
    if (fadeMs <= 0 || (span.startMs <= 0 && !Number.isFinite(span.endMs))) {
      if (timeMs >= span.startMs && timeMs < span.endMs) return 1;
      continue;
    }
    const rise = span.startMs <= 0 ? 1 : (timeMs - span.startMs) / fadeMs + 0.5;
    const fall = Number.isFinite(span.endMs) ? (span.endMs - timeMs) / fadeMs + 0.5 : 1;
    strength = Math.max(strength, Math.min(1, rise, fall));
  }
  return Math.max(0, strength);
}

/** How far the inner lip edges are averaged each way, × the mouth's width. */
const INNER_EDGE_SMOOTHING = 0.06;

/**
 * The geometry with its inner lip edges averaged along the mouth (`INNER_EDGE_SMOOTHING`): found from
 * the pixels between the lips, they follow every shadow of a stubbly or blurry mouth, and an opening
 * drawn between them would have torn edges.
 */
export function steadyInnerEdges(geometry: MouthGeometry): MouthGeometry {
  const radius = Math.max(1, INNER_EDGE_SMOOTHING * geometry.width);
  return {
    ...geometry,
    upperInner: smoothedContour(geometry.upperInner, radius),
    lowerInner: smoothedContour(geometry.lowerInner, radius),
  };
}

/** Each lip's thickness at the middle of the mouth ÷ the mouth's width, as recorded. */
export function lipThickness(geometry: MouthGeometry): { upper: number; lower: number } {
  const middle = (geometry.innerStart + geometry.innerEnd) / 2;
  const width = Math.max(1, geometry.width);
  return {
    upper: Math.max(0, geometry.upperInner.at(middle) - geometry.upperOuter.at(middle)) / width,
    lower: Math.max(0, geometry.lowerOuter.at(middle) - geometry.lowerInner.at(middle)) / width,
  };
}

/** How much of each new frame's lip thickness goes into the running one. */
const LIP_THICKNESS_WEIGHT = 0.1;

/**
 * Keeps the lips as thick from frame to frame as they are on average: a recorded mouth's lips are
 * thinner open than shut (stretched), so reshaping each frame's own lips alone makes them jump
 * whenever the old speech opened or shut the mouth. Each lip's target thickness is a running mean
 * (`LIP_THICKNESS_WEIGHT` per frame) of the recorded ones, as a share of the mouth's width, within
 * 0.75 to 1.35 of the frame's own.
 */
export class SteadyLips {
  private mean: { upper: number; lower: number } | undefined;

  steadied(shape: MouthShape, geometry: MouthGeometry): MouthShape {
    const here = lipThickness(geometry);
    if (here.upper <= 0 || here.lower <= 0) return shape;
    const mean = this.mean ?? here;
    this.mean = {
      upper: mean.upper + (here.upper - mean.upper) * LIP_THICKNESS_WEIGHT,
      lower: mean.lower + (here.lower - mean.lower) * LIP_THICKNESS_WEIGHT,
    };
    const ratio = (target: number, own: number) => Math.min(1.35, Math.max(0.75, target / own));
    return {
      ...shape,
      upperLipThickness: shape.upperLipThickness * ratio(this.mean.upper, here.upper),
      lowerLipThickness: shape.lowerLipThickness * ratio(this.mean.lower, here.lower),
    };
  }

  /** A frame without the face: the next face starts its own mean. */
  forget(): void {
    this.mean = undefined;
  }
}

/** Pastes an RGBA sprite on an RGBA frame at `box`, its alpha scaled by `strength`. */
function paste(
  frame: Uint8Array,
  frameWidth: number,
  sprite: Uint8Array,
  box: { x: number; y: number; width: number; height: number },
  strength: number,
): void {
  for (let row = 0; row < box.height; row++) {
    let from = row * box.width * 4;
    let to = ((box.y + row) * frameWidth + box.x) * 4;
    for (let column = 0; column < box.width; column++, from += 4, to += 4) {
      const alpha = ((sprite[from + 3] as number) / 255) * strength;
      if (alpha <= 0) continue;
      for (let c = 0; c < 3; c++) {
        frame[to + c] = Math.round(
          (frame[to + c] as number) * (1 - alpha) + (sprite[from + c] as number) * alpha,
        );
      }
    }
  }
}

/** A face to re-animate on a frame: its track, its mouth, the box its warp covers, its lips' state. */
interface MouthWarp {
  track: FaceTrack;
  geometry: MouthGeometry;
  area: FeatureArea;
  box: PixelBox;
  lips: SteadyLips;
}

/** A found face that keeps its recorded mouth on a frame, and why. */
interface KeptFace {
  track: FaceTrack;
  reason: LipSkipReason;
}

function boxesOverlap(a: PixelBox, b: PixelBox): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * The tracks' faces frame by frame, for pass 2 (frames in increasing order): each track's face on the
 * frame (`faceAtFrame`), its mouth and the box its warp covers, and each track's `SteadyLips`. The
 * warped boxes never overlap: where a mouth's box would overlap a wider face's (one head in front of
 * another, or two faces pressed together), the wider face's mouth is re-animated and the other keeps
 * its own (`mouths_overlap`): each warp redraws its whole box from the recorded pixels, so a second one
 * there would paste the first face's chin or lips over with the recording's, or tear them.
 */
export class TracksAtFrame {
  private next = 0;
  private active: FaceTrack[] = [];
  private readonly lips = new Map<FaceTrack, SteadyLips>();

  /** `tracks` in the order their faces were first found (`FaceTracker.all`); `step`: frames between searches. */
  constructor(
    private readonly tracks: readonly FaceTrack[],
    private readonly step: number,
  ) {}

  /**
   * The faces to re-animate on `frame` (widest first) and those found that keep their mouths (the
   * widest track's first).
   */
  at(frame: number, image: RgbaImage): { warps: MouthWarp[]; kept: KeptFace[] } {
    // `faceAtFrame` reads detections at most two steps away: tracks further off have nothing here.
    const reach = 2 * this.step;
    for (let track = this.tracks[this.next]; track; track = this.tracks[this.next]) {
      if ((track.detections[0] as Detection).frame - reach > frame) break;
      this.active.push(track);
      this.next++;
    }
    this.active = this.active.filter((track) => {
      const ended = (track.detections.at(-1) as Detection).frame + reach < frame;
      if (ended) this.lips.delete(track);
      return !ended;
    });
    const faces: { track: FaceTrack; face: FaceLandmarks }[] = [];
    const kept: KeptFace[] = [];
    for (const track of this.active) {
      const choice = faceAtFrame(track.detections, frame, this.step, track.mouthWeights);
      if ('face' in choice) {
        faces.push({ track, face: choice.face });
        continue;
      }
      // A frame without the face: its lips' running thickness starts again when it is back.
      this.lips.get(track)?.forget();
      if (choice.found) kept.push({ track, reason: choice.reason });
    }
    faces.sort((a, b) => b.face.box.width - a.face.box.width);
    const warps: MouthWarp[] = [];
    for (const { track, face } of faces) {
      const geometry = steadyInnerEdges(mouthGeometry(face, image));
      const area = mouthArea(geometry);
      const box = areaBox([area], image.width, image.height);
      const reason =
        box.width <= 0 || box.height <= 0
          ? LIP_SKIP_REASONS.faceCutOff
          : warps.some((warp) => boxesOverlap(warp.box, box))
            ? LIP_SKIP_REASONS.mouthsOverlap
            : undefined;
      if (reason) {
        this.lips.get(track)?.forget();
        kept.push({ track, reason });
        continue;
      }
      let lips = this.lips.get(track);
      if (!lips) {
        lips = new SteadyLips();
        this.lips.set(track, lips);
      }
      warps.push({ track, geometry, area, box, lips });
    }
    kept.sort((a, b) => b.track.width - a.track.width);
    return { warps, kept };
  }
}

// ---------------------------------------------------------------------------------------------------
// The run

function settingsOf(options: ReanimateLipsOptions | undefined): Required<ReanimateLipsOptions> {
  const settings = { ...LIPS_DEFAULTS };
  for (const [key, value] of Object.entries(options ?? {})) {
    if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
  }
  if (!(settings.detectFps > 0)) throw new RangeError('detectFps must be positive');
  if (!(settings.analysisMaxSide >= 64)) throw new RangeError('analysisMaxSide must be at least 64');
  if (!(settings.transitionMs >= 0 && settings.spanFadeMs >= 0 && settings.faceMemoryMs >= 0)) {
    throw new RangeError('transitionMs, spanFadeMs and faceMemoryMs must not be negative');
  }
  if (!(settings.timeoutMs > 0)) throw new RangeError('timeoutMs must be positive');
  return settings;
}

function rateOf(frameRate: string): number {
  const [numerator = 25, denominator = 1] = frameRate.split('/').map(Number);
  return numerator / denominator;
}

/**
 * The frames to analyse, from a step before to a step after each span (each frame's time is its
 * middle; the faces are searched on every `step`-th), as merged frame ranges and the frames in order
 * (lazily: an unbounded span runs to `maxFrames`).
 */
export function detectionSchedule(
  spans: readonly LipSpan[],
  fps: number,
  step: number,
  fadeMs: number,
  maxFrames: number,
): { ranges: [number, number][]; frames: () => Generator<number> } {
  const ranges = spans
    .map((span): [number, number] => {
      const first = Math.max(0, Math.floor(((span.startMs - fadeMs / 2) * fps) / 1000 - 0.5) - step);
      const end = Number.isFinite(span.endMs)
        ? Math.ceil(((span.endMs + fadeMs / 2) * fps) / 1000 - 0.5) + step
        : maxFrames;
      return [first, Math.min(maxFrames, end)];
    })
    .filter(([first, last]) => last >= first)
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const previous = merged.at(-1);
    if (previous && range[0] <= previous[1] + 1) previous[1] = Math.max(previous[1], range[1]);
    else merged.push([...range]);
  }
  return {
    ranges: merged,
    *frames() {
      for (const [first, last] of merged) {
        for (let frame = first; frame <= last; frame++) yield frame;
      }
    },
  };
}

interface Decoder {
  child: ReturnType<typeof spawn>;
  watched: Child;
}

function decoder(ffmpeg: string, args: string[]): Decoder {
  const child = spawn(ffmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, watched: watch(child, ffmpeg) };
}

async function finished(decoding: Child, what: string): Promise<void> {
  const code = await decoding.exit;
  if (code !== 0) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `cannot decode ${what}: ${decoding.stderr().trim().split('\n').at(-1) || `ffmpeg exited with ${code}`}`,
    );
  }
}

/** A grey picture (analysis size), one byte a pixel. */
interface GreyFrame {
  frame: number;
  grey: Uint8Array;
}

function greyOf(rgb: Uint8Array, pixels: number): Uint8Array {
  const grey = new Uint8Array(pixels);
  for (let pixel = 0, at = 0; pixel < pixels; pixel++, at += 3) {
    grey[pixel] =
      ((rgb[at] as number) * 77 + (rgb[at + 1] as number) * 150 + (rgb[at + 2] as number) * 29) >> 8;
  }
  return grey;
}

/**
 * The mean absolute grey difference between `frame` (shifted by `shift`) and `reference` over `box`
 * (every second pixel; pixels pushed off the picture are skipped).
 */
function shiftedDifference(
  reference: Uint8Array,
  frame: Uint8Array,
  width: number,
  height: number,
  box: { left: number; top: number; right: number; bottom: number },
  shift: { x: number; y: number },
): number {
  let total = 0;
  let count = 0;
  for (let y = box.top; y < box.bottom; y += 2) {
    const shiftedY = y + shift.y;
    if (y < 0 || y >= height || shiftedY < 0 || shiftedY >= height) continue;
    for (let x = box.left; x < box.right; x += 2) {
      const shiftedX = x + shift.x;
      if (x < 0 || x >= width || shiftedX < 0 || shiftedX >= width) continue;
      total += Math.abs(
        (reference[y * width + x] as number) - (frame[shiftedY * width + shiftedX] as number),
      );
      count++;
    }
  }
  return count > 0 ? total / count : 0;
}

/**
 * The least `shiftedDifference` within a pixel of `shift` each way: the head's move between two
 * detections is known only roughly (and video moves by fractions of a pixel).
 */
function patchDifference(
  reference: Uint8Array,
  frame: Uint8Array,
  width: number,
  height: number,
  box: { left: number; top: number; right: number; bottom: number },
  shift: { x: number; y: number },
): number {
  let least = Number.POSITIVE_INFINITY;
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      least = Math.min(
        least,
        shiftedDifference(reference, frame, width, height, box, { x: shift.x + dx, y: shift.y + dy }),
      );
    }
  }
  return least;
}

/**
 * How far (0..1) each frame between two detections' frames has its mouth from the first's towards the
 * second's, by looks: its mouth area (lips to chin, moved with the head) compared with both, the
 * weight being the share of the difference to the first. Frames as alike to both (a still mouth)
 * keep their place in time. `scale` takes source pixels to the grey frames'.
 */
export function mouthLikeness(
  first: GreyFrame & { face: FaceLandmarks },
  second: GreyFrame & { face: FaceLandmarks },
  between: readonly GreyFrame[],
  width: number,
  height: number,
  scale: number,
): Map<number, number> {
  const weights = new Map<number, number>();
  const lips = [...first.face.lips.upperOuter, ...first.face.lips.lowerOuter, ...first.face.jaw];
  const mouthWide = mouthWidth(first.face);
  const chin = first.face.jaw[Math.floor(first.face.jaw.length / 2)] as Point;
  const box = {
    left: Math.floor((Math.min(...lips.map((p) => p.x)) + 0.2 * mouthWide) * scale),
    right: Math.ceil((Math.max(...lips.map((p) => p.x)) - 0.2 * mouthWide) * scale),
    top: Math.floor(first.face.noseBottom.y * scale),
    bottom: Math.ceil((chin.y + 0.1 * mouthWide) * scale),
  };
  const anchorA = anchorOf(first.face);
  const anchorB = anchorOf(second.face);
  const headMove = { x: (anchorB.x - anchorA.x) * scale, y: (anchorB.y - anchorA.y) * scale };
  const span = second.frame - first.frame;
  for (const { frame, grey } of between) {
    const time = (frame - first.frame) / span;
    const here = { x: Math.round(headMove.x * time), y: Math.round(headMove.y * time) };
    const toFirst = patchDifference(first.grey, grey, width, height, box, here);
    const fromSecond = {
      x: Math.round(headMove.x * (time - 1)),
      y: Math.round(headMove.y * (time - 1)),
    };
    // The second's mouth area is the first's moved by the head.
    const secondBox = {
      left: box.left + Math.round(headMove.x),
      right: box.right + Math.round(headMove.x),
      top: box.top + Math.round(headMove.y),
      bottom: box.bottom + Math.round(headMove.y),
    };
    const toSecond = patchDifference(second.grey, grey, width, height, secondBox, fromSecond);
    const sum = toFirst + toSecond;
    weights.set(frame, sum < 1 ? time : toFirst / sum);
  }
  return weights;
}

/**
 * Pass 1: the faces on the scheduled frames sorted into tracks, and how each frame between two of a
 * track's usable detections has its mouth.
 */
async function detectFaces(
  ffmpeg: string,
  input: string,
  info: VideoStreamInfo,
  schedule: ReturnType<typeof detectionSchedule>,
  step: number,
  analysisMaxSide: number,
  memoryFrames: number,
  deadline: AbortSignal,
): Promise<{ tracks: readonly FaceTrack[]; detections: number; detectionMs: number }> {
  const analysis = fittedSize(info.width, info.height, analysisMaxSide);
  const toSource = info.width / analysis.width;
  const inRanges = schedule.ranges.map(([first, last]) => `between(n,${first},${last})`).join('+');
  const decoding = decoder(ffmpeg, [
    '-i',
    fileInput(input),
    '-map',
    `0:${info.streamIndex}`,
    '-vf',
    `fps=${info.frameRate},select='${inRanges || '0'}',scale=${analysis.width}:${analysis.height}`,
    '-vsync',
    '0',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ]);
  const kill = () => decoding.watched.kill();
  deadline.addEventListener('abort', kill);
  const expected = schedule.frames();
  const tracker = new FaceTracker(step, memoryFrames);
  let detections = 0;
  const pixels = analysis.width * analysis.height;
  // Each track's last usable detection with its grey frame, and every frame of the last two steps.
  const anchors = new Map<FaceTrack, GreyFrame & { face: FaceLandmarks }>();
  let recent: GreyFrame[] = [];
  let detectionMs = 0;
  try {
    for await (const rgb of rawFrames(decoding.child.stdout as AsyncIterable<Buffer>, pixels * 3)) {
      const { value: frame, done } = expected.next();
      // Never past the schedule (the select filter outputs exactly its frames); drained if it were.
      if (done) continue;
      const grey = greyOf(rgb, pixels);
      recent = recent.filter((item) => item.frame >= frame - 2 * step);
      recent.push({ frame, grey });
      if (frame % step !== 0) continue;
      const started = performance.now();
      const faces = await findFaces({
        data: rgb,
        width: analysis.width,
        height: analysis.height,
        channels: 3,
      });
      detectionMs += performance.now() - started;
      detections++;
      // Assessed before compacting: the head's turn is measured on the whole mesh.
      const found = assessFaces(
        faces.map((face) => scaleFace(face, toSource)),
        info.width,
        info.height,
      ).map((item) => ({ ...item, face: compactFace(item.face) }));
      const tracks = tracker.add(frame, found);
      found.forEach(({ face, reason }, index) => {
        const track = tracks[index] as FaceTrack;
        if (reason) {
          // A face that cannot be re-animated here breaks its track's interpolation (`faceAtFrame`).
          anchors.delete(track);
          return;
        }
        const here = { frame, grey, face };
        const anchor = anchors.get(track);
        // The anchor is at most two steps back, with only misses between: `faceAtFrame` interpolates.
        if (anchor && frame - anchor.frame <= 2 * step) {
          const between = recent.filter((item) => item.frame > anchor.frame && item.frame < frame);
          for (const [index, weight] of mouthLikeness(
            anchor,
            here,
            between,
            analysis.width,
            analysis.height,
            1 / toSource,
          )) {
            track.mouthWeights.set(index, weight);
          }
        }
        anchors.set(track, here);
      });
      // Tracks not seen for two steps have ended (`FaceTracker`): their grey frames can go.
      for (const [track, anchor] of anchors) if (anchor.frame < frame - 2 * step) anchors.delete(track);
    }
    await finished(decoding.watched, input);
  } catch (error) {
    kill();
    throw error;
  } finally {
    deadline.removeEventListener('abort', kill);
  }
  return { tracks: tracker.all(), detections, detectionMs };
}

/** H.264 in yuv420p needs even sides: an odd one loses its last row or column. */
function evenSize(info: VideoStreamInfo): { width: number; height: number } {
  return { width: info.width - (info.width % 2), height: info.height - (info.height % 2) };
}

function encoderArguments(info: VideoStreamInfo, settings: Required<ReanimateLipsOptions>, out: string) {
  const even = evenSize(info);
  const crop =
    even.width === info.width && even.height === info.height
      ? []
      : ['-vf', `crop=${even.width}:${even.height}:0:0`];
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'],
    ...['-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${info.width}x${info.height}`],
    ...['-framerate', info.frameRate, '-i', 'pipe:0', '-map', '0:v', '-an', ...crop],
    ...['-c:v', 'libx264', '-preset', settings.x264Preset, '-crf', String(settings.x264Crf)],
    ...['-pix_fmt', 'yuv420p', '-movflags', '+faststart', fileInput(out)],
  ];
}

/**
 * Re-animates the lips of every usable face in the video to `visemes` inside `spans` and writes the result to
 * `workDir/lips.mp4` (no audio). Throws `VisionEngineError`: `invalid_media` when the video cannot be
 * read, `engine_unavailable` when ffmpeg or the face model cannot run, the encoder fails or the run
 * outlasts `timeoutMs`; `RangeError` for bad options.
 */
export async function reanimateLips(input: ReanimateLipsInput): Promise<ReanimatedLips> {
  const started = performance.now();
  const settings = settingsOf(input.options);
  const spans: LipSpan[] = (input.spans ?? [{ startMs: 0, endMs: Number.POSITIVE_INFINITY }]).filter(
    (span) => span.endMs > span.startMs,
  );
  await mkdir(input.workDir, { recursive: true });
  const outputPath = path.join(input.workDir, 'lips.mp4');
  const info = await probeVideo(input.videoPath, settings.timeoutMs);
  const ffmpeg = await runnable('ffmpeg');
  const fps = rateOf(info.frameRate);
  const step = Math.max(1, Math.round(fps / settings.detectFps));
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const timedOut = () =>
    new VisionEngineError(
      VISION_FAILURE.engineUnavailable,
      `Re-animating the lips of ${input.videoPath} did not finish within ${settings.timeoutMs} ms`,
    );

  // Frames past the end are never decoded: the schedule is as long as the video allows.
  const schedule = detectionSchedule(spans, fps, step, settings.spanFadeMs, Number.MAX_SAFE_INTEGER);
  let tracks: readonly FaceTrack[] = [];
  let detections = 0;
  let detectionMs = 0;
  if (schedule.ranges.length > 0) {
    try {
      ({ tracks, detections, detectionMs } = await detectFaces(
        ffmpeg,
        input.videoPath,
        info,
        schedule,
        step,
        settings.analysisMaxSide,
        Math.round((settings.faceMemoryMs * fps) / 1000),
        deadline,
      ));
    } catch (error) {
      if (deadline.aborted) throw timedOut();
      throw error;
    }
  }

  // Pass 2: every frame, warped where it should be, into the encoder.
  const track = normalizeVisemeCues(input.visemes, Math.max(0, ...input.visemes.map((cue) => cue.endMs), 1));
  const decoding = decoder(ffmpeg, [
    '-i',
    fileInput(input.videoPath),
    '-map',
    `0:${info.streamIndex}`,
    '-vf',
    `fps=${info.frameRate},scale=${info.width}:${info.height}`,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgba',
    'pipe:1',
  ]);
  const encoding = frameEncoder(ffmpeg, encoderArguments(info, settings, outputPath));
  const killAll = () => {
    decoding.watched.kill();
    encoding.kill();
  };
  deadline.addEventListener('abort', killAll);

  const counts: ReanimatedLips['faces'] = {
    framesInSpans: 0,
    framesWithFace: 0,
    framesReanimated: 0,
    framesSkipped: 0,
    reasons: {},
    tracks: 0,
    facesReanimated: 0,
    facesKept: {},
  };
  const reanimatedTracks = new Set<FaceTrack>();
  const faceTracks = new TracksAtFrame(tracks, step);
  let frames = 0;
  let warpMs = 0;
  let failure: unknown;
  try {
    const frameBytes = info.width * info.height * 4;
    for await (const frame of rawFrames(decoding.child.stdout as AsyncIterable<Buffer>, frameBytes)) {
      const index = frames++;
      const timeMs = ((index + 0.5) * 1000) / fps;
      const strength = spanStrength(spans, timeMs, settings.spanFadeMs);
      if (strength > 0) {
        counts.framesInSpans++;
        const warpStarted = performance.now();
        const image: RgbaImage = { data: frame, width: info.width, height: info.height, channels: 4 };
        const { warps, kept } = faceTracks.at(index, image);
        if (warps.length > 0 || kept.length > 0) counts.framesWithFace++;
        for (const { reason } of kept) counts.facesKept[reason] = (counts.facesKept[reason] ?? 0) + 1;
        if (warps.length > 0) {
          const shape = blendedMouth(track, timeMs, settings.transitionMs);
          // Every sprite is drawn from the recorded frame before any is pasted (the boxes never overlap).
          const sprites = warps.map((warp) =>
            renderMouthSprite(
              image,
              warp.geometry,
              warp.area,
              warp.lips.steadied(shape, warp.geometry),
              warp.box,
            ),
          );
          warps.forEach((warp, at) => {
            paste(frame, info.width, sprites[at] as Uint8Array, warp.box, strength);
            reanimatedTracks.add(warp.track);
          });
          counts.framesReanimated++;
          counts.facesReanimated += warps.length;
        } else {
          // No face re-animated: the frame is counted under its widest face's reason.
          const reason = kept[0]?.reason ?? LIP_SKIP_REASONS.noFace;
          counts.framesSkipped++;
          counts.reasons[reason] = (counts.reasons[reason] ?? 0) + 1;
        }
        if (warps.length > 0 || kept.length > 0) warpMs += performance.now() - warpStarted;
      }
      await encoding.write(frame);
    }
    encoding.end();
  } catch (error) {
    failure = error;
    killAll();
  }
  let decoderCode: number | null;
  let encoderCode: number | null;
  try {
    [decoderCode, encoderCode] = await Promise.all([decoding.watched.exit, encoding.exit]);
  } finally {
    deadline.removeEventListener('abort', killAll);
  }
  if (deadline.aborted) throw timedOut();
  if (failure instanceof VisionEngineError) throw failure;
  if (decoderCode !== 0 && decoderCode !== null) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `cannot decode ${input.videoPath}: ${decoding.watched.stderr().trim().split('\n').at(-1)}`,
      { cause: failure },
    );
  }
  if (encoderCode !== 0 || failure) {
    const reason =
      encoderCode !== 0 && encoderCode !== null
        ? encoding.stderr().trim().split('\n').at(-1)
        : String(failure);
    throw new VisionEngineError(
      VISION_FAILURE.engineUnavailable,
      `ffmpeg cannot encode ${outputPath}: ${reason}`,
      {
        cause: failure,
      },
    );
  }
  if (frames === 0) {
    throw new VisionEngineError(VISION_FAILURE.invalidMedia, `${input.videoPath} has no decodable frames`);
  }
  return {
    videoPath: outputPath,
    ...evenSize(info),
    frames,
    frameRate: fps,
    faces: { ...counts, tracks: reanimatedTracks.size },
    timings: {
      totalMs: performance.now() - started,
      detections,
      detectionMs,
      warpMs,
    },
  };
}
