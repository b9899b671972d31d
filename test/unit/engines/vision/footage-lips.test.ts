/**
 * Lips re-animated over footage, with the real face model and ffmpeg. The "recording" is one of our
 * stock portraits (a photo presenter's own warped open mouth pasted on and off: open 0.25 s in every
 * 0.6 s, the old speech), swaying gently, 640×360 at 25 fps, 3 s. The new speech is rest, then 1 s of
 * `open_wide`, then rest. The output is decoded and the face model measures every frame's mouth: that
 * is how a viewer sees it follow the new speech and not the old.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPortrait } from '../../../../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../../../../lambdas/catalog/stock-avatars.js';
import { ffmpegPath } from '../../../../lambdas/engines/composition/ffmpeg-binaries.js';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import type { VisemeCue } from '../../../../lambdas/engines/speech/visemes.js';
import {
  type FaceLandmarks,
  faceFromMesh,
  findFaces,
  MESH_POINTS,
  mouthOpening,
} from '../../../../lambdas/engines/vision/face-landmarks.js';
import {
  ColumnContour,
  featureFrame,
  type MouthGeometry,
} from '../../../../lambdas/engines/vision/feature-warps.js';
import {
  blendedMouth,
  chooseFace,
  type Detection,
  detectionSchedule,
  FOOTAGE_MOUTHS,
  faceAtFrame,
  headTurn,
  type ReanimatedLips,
  reanimateLips,
  SteadyLips,
  spanStrength,
  steadyInnerEdges,
} from '../../../../lambdas/engines/vision/footage-lips.js';
import { preparePhotoPresenter } from '../../../../lambdas/engines/vision/photo-presenter.js';
import { ffmpeg, scratchDir } from '../composition/media-fixtures.js';

const WIDTH = 640;
const HEIGHT = 360;
const FPS = 25;
const SECONDS = 3;
/** The new speech: the mouth shuts for the first and last second, opens wide in between. */
const NEW_SPEECH: VisemeCue[] = [
  { startMs: 0, endMs: 1000, viseme: 'rest' },
  { startMs: 1000, endMs: 2000, viseme: 'open_wide' },
  { startMs: 2000, endMs: 3000, viseme: 'rest' },
];

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let source: string;
/** The portrait and its open mouth, with where the mouth goes. */
let openMouth: { photoPath: string; mouthPath: string; x: number; y: number };

/** The old speech's recording (see the file's comment). */
async function recording(file: string): Promise<string> {
  const look = findStockLook('maya-office');
  if (!look) throw new Error('no stock look maya-office');
  const portrait = await sharp(await renderPortrait(look))
    .flatten({ background: '#7f8a96' })
    .png()
    .toBuffer();
  const presenter = await preparePhotoPresenter(portrait);
  if (presenter.kind !== 'animated') throw new Error(`the portrait stays still: ${presenter.message}`);
  const photoPath = path.join(scratch.dir, 'portrait.png');
  const mouthPath = path.join(scratch.dir, 'open.png');
  await writeFile(photoPath, presenter.image);
  await writeFile(mouthPath, presenter.sprites.open_wide.png);
  const { x, y } = presenter.sprites.open_wide.box;
  openMouth = { photoPath, mouthPath, x, y };
  await ffmpeg([
    ...['-loop', '1', '-framerate', String(FPS), '-t', String(SECONDS), '-i', photoPath, '-i', mouthPath],
    '-filter_complex',
    `[1]format=rgba[m];[0][m]overlay=x=${x}:y=${y}:enable='lt(mod(t,0.6),0.25)'[o];` +
      `[o]crop=1280:720:x='323+8*sin(2*PI*t*0.4)':y='124+6*sin(2*PI*t*0.3)',scale=${WIDTH}:${HEIGHT},format=yuv420p[v]`,
    ...['-map', '[v]', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', file],
  ]);
  return file;
}

/** Every frame of a video as raw RGB. */
async function decodedFrames(file: string, width: number, height: number): Promise<Buffer[]> {
  const child = spawn(
    ffmpegPath(),
    ['-loglevel', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
  const all = Buffer.concat(chunks);
  const size = width * height * 3;
  const frames: Buffer[] = [];
  for (let at = 0; at + size <= all.length; at += size) frames.push(all.subarray(at, at + size));
  return frames;
}

/** The face model's mouth opening on a frame (NaN without a face). */
async function openingOf(frame: Buffer): Promise<number> {
  const faces = await findFaces({ data: frame, width: WIDTH, height: HEIGHT, channels: 3 });
  return faces[0] ? mouthOpening(faces[0]) : Number.NaN;
}

/** Mean absolute difference per channel over a region. */
function regionDifference(
  a: Buffer,
  b: Buffer,
  region: { left: number; top: number; width: number; height: number },
): number {
  let sum = 0;
  for (let y = region.top; y < region.top + region.height; y++) {
    for (let x = region.left; x < region.left + region.width; x++) {
      for (let c = 0; c < 3; c++) {
        const at = (y * WIDTH + x) * 3 + c;
        sum += Math.abs((a[at] as number) - (b[at] as number));
      }
    }
  }
  return sum / (region.width * region.height * 3);
}

const timeOf = (frame: number) => ((frame + 0.5) * 1000) / FPS;

beforeAll(async () => {
  scratch = await scratchDir('lips');
  source = await recording(path.join(scratch.dir, 'recording.mp4'));
}, 120_000);

afterAll(async () => {
  if (!process.env.KEEP_SCRATCH) await scratch?.remove();
});

describe('reanimateLips over a recording of other speech', () => {
  let result: ReanimatedLips;
  let sourceFrames: Buffer[];
  let outputFrames: Buffer[];
  let elapsedMs: number;

  beforeAll(async () => {
    const started = performance.now();
    result = await reanimateLips({
      videoPath: source,
      visemes: NEW_SPEECH,
      workDir: path.join(scratch.dir, 'whole'),
    });
    elapsedMs = performance.now() - started;
    sourceFrames = await decodedFrames(source, WIDTH, HEIGHT);
    outputFrames = await decodedFrames(result.videoPath, WIDTH, HEIGHT);
    const { timings } = result;
    console.log(
      `lips over ${result.frames} frames of ${WIDTH}×${HEIGHT}: ${Math.round(elapsedMs)} ms (${(elapsedMs / result.frames).toFixed(1)} ms a frame, ${((SECONDS * 1000) / elapsedMs).toFixed(2)}× real time); ${timings.detections} detections ${Math.round(timings.detectionMs)} ms, warps ${Math.round(timings.warpMs)} ms`,
    );
  }, 120_000);

  it('keeps the size, the frame rate and every frame, without audio', async () => {
    expect(result.frames).toBe(SECONDS * FPS);
    expect(outputFrames).toHaveLength(sourceFrames.length);
    const info = await probeMedia(result.videoPath);
    expect(info.streams.map((stream) => stream.type)).toEqual(['video']);
    expect(info.streams[0]).toMatchObject({ codec: 'h264', width: WIDTH, height: HEIGHT });
    expect(info.durationSeconds).toBeCloseTo(SECONDS, 1);
    expect(result.faces).toMatchObject({
      framesInSpans: 75,
      framesWithFace: 75,
      framesReanimated: 75,
      framesSkipped: 0,
    });
  });

  it('opens the mouth where the new speech is open and shuts it where it rests, whatever the old speech did', async () => {
    const rows: string[] = [];
    const restOpenings: number[] = [];
    const openOpenings: number[] = [];
    let oldOpenInRest = 0;
    let oldShutInOpen = 0;
    // Every other frame: the old speech switches every 0.3 s (7 frames), so no stretch is skipped.
    for (let frame = 0; frame < outputFrames.length; frame += 2) {
      const time = timeOf(frame);
      // Within 100 ms of a change the mouth is on its way from one shape to the next.
      if (Math.abs(time - 1000) < 100 || Math.abs(time - 2000) < 100) continue;
      const before = await openingOf(sourceFrames[frame] as Buffer);
      const after = await openingOf(outputFrames[frame] as Buffer);
      rows.push(`${frame}:${before.toFixed(2)}→${after.toFixed(2)}`);
      if (time > 1000 && time < 2000) {
        openOpenings.push(after);
        if (before < 0.12) oldShutInOpen++;
      } else {
        restOpenings.push(after);
        if (before > 0.2) oldOpenInRest++;
      }
    }
    console.log(`mouth opening, recording → re-animated: ${rows.join(' ')}`);
    // The old speech really disagrees with the new: open in the rests, shut in the open stretch.
    expect(oldOpenInRest).toBeGreaterThanOrEqual(7);
    expect(oldShutInOpen).toBeGreaterThanOrEqual(4);
    expect(Math.max(...restOpenings)).toBeLessThan(0.1);
    expect(Math.min(...openOpenings)).toBeGreaterThan(0.15);
  }, 60_000);

  it('changes nothing away from the mouth', () => {
    // The background beside the head, the eyes and the collar: only the re-encoding differs (about
    // 1.5 of 255 on coloured edges: the frames go through RGB, so chroma is resampled twice), far
    // below what a re-shaped mouth changes (next test: about 10 on the mouth).
    const regions = [
      { left: 10, top: 10, width: 120, height: 120 },
      { left: 260, top: 110, width: 120, height: 40 },
      { left: 500, top: 220, width: 120, height: 120 },
    ];
    for (const region of regions) {
      let worst = 0;
      for (let frame = 0; frame < outputFrames.length; frame += 5) {
        worst = Math.max(
          worst,
          regionDifference(sourceFrames[frame] as Buffer, outputFrames[frame] as Buffer, region),
        );
      }
      expect(worst, JSON.stringify(region)).toBeLessThan(2.5);
    }
  });
});

describe('reanimateLips inside spans only', () => {
  it('leaves the frames outside the spans as they were', async () => {
    const result = await reanimateLips({
      videoPath: source,
      visemes: [{ startMs: 0, endMs: 3000, viseme: 'open_wide' }],
      spans: [{ startMs: 1200, endMs: 1800 }],
      workDir: path.join(scratch.dir, 'span'),
      options: { detectFps: 12.5 },
    });
    expect(result.frames).toBe(75);
    // 0.6 s of frames, plus one either side half faded in.
    expect(result.faces.framesInSpans).toBe(17);
    expect(result.faces.framesReanimated).toBe(17);
    const before = await decodedFrames(source, WIDTH, HEIGHT);
    const after = await decodedFrames(result.videoPath, WIDTH, HEIGHT);
    const mouth = { left: 285, top: 190, width: 70, height: 50 };
    const changes = before.map((frame, index) => regionDifference(frame, after[index] as Buffer, mouth));
    const outside = changes.filter((_, frame) => timeOf(frame) < 1100 || timeOf(frame) > 1900);
    // Where the recording's mouth is shut (1.45 to 1.8 s) the span opens it.
    // Where the recording's mouth is shut (1.45 to 1.8 s) the span opens it.
    const inside = changes.slice(38, 44);
    console.log(
      `mouth area changed by at most ${Math.max(...outside).toFixed(2)} outside the span, at least ${Math.min(...inside).toFixed(2)} where it opens a shut mouth`,
    );
    expect(Math.max(...outside)).toBeLessThan(2.5);
    for (const frame of [38, 40, 42]) {
      expect(await openingOf(after[frame] as Buffer)).toBeGreaterThan(0.18);
      expect(await openingOf(before[frame] as Buffer)).toBeLessThan(0.12);
    }
    expect(Math.min(...inside)).toBeGreaterThan(6);
  }, 120_000);

  it('passes a video without a face through, counting why (odd sides lose a pixel)', async () => {
    const bars = path.join(scratch.dir, 'bars.mkv');
    await ffmpeg([
      ...['-f', 'lavfi', '-i', 'testsrc=size=161x121:rate=25:duration=1'],
      ...['-pix_fmt', 'yuv444p', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', bars],
    ]);
    const result = await reanimateLips({
      videoPath: bars,
      visemes: [{ startMs: 0, endMs: 1000, viseme: 'open_wide' }],
      workDir: path.join(scratch.dir, 'bars'),
    });
    expect(result).toMatchObject({ frames: 25, width: 160, height: 120 });
    const info = await probeMedia(result.videoPath);
    expect(info.streams[0]).toMatchObject({ codec: 'h264', width: 160, height: 120 });
    expect(result.faces).toEqual({
      framesInSpans: 25,
      framesWithFace: 0,
      framesReanimated: 0,
      framesSkipped: 25,
      reasons: { no_face: 25 },
    });
  }, 60_000);

  it('re-animates the largest of several faces and leaves the others alone', async () => {
    // Two people, both with their mouths open: a near one (a face about 130 px wide), a far one (90 px).
    const two = path.join(scratch.dir, 'two.mp4');
    const { photoPath, mouthPath, x, y } = openMouth;
    await ffmpeg([
      ...['-loop', '1', '-framerate', String(FPS), '-t', '1', '-i', photoPath, '-i', mouthPath],
      '-filter_complex',
      `[1]format=rgba[m];[0][m]overlay=x=${x}:y=${y},crop=1280:720:323:124,split[p][q];[p]scale=400:225[near];[q]scale=240:135[far];` +
        `color=c=0x7f8a96:s=${WIDTH}x${HEIGHT}:r=${FPS}:d=1[bg];[bg][near]overlay=0:70:shortest=1[n];[n][far]overlay=400:120,format=yuv420p[v]`,
      ...['-map', '[v]', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', two],
    ]);
    const result = await reanimateLips({
      videoPath: two,
      visemes: [{ startMs: 0, endMs: 1000, viseme: 'rest' }],
      workDir: path.join(scratch.dir, 'two'),
    });
    expect(result.faces.framesReanimated).toBe(25);
    const [before] = await decodedFrames(two, WIDTH, HEIGHT);
    const [after] = await decodedFrames(result.videoPath, WIDTH, HEIGHT);
    const faces = async (frame: Buffer) =>
      (await findFaces({ data: frame, width: WIDTH, height: HEIGHT, channels: 3 })).sort(
        (a, b) => a.box.x - b.box.x,
      );
    const [nearBefore, farBefore] = await faces(before as Buffer);
    const [nearAfter] = await faces(after as Buffer);
    if (!nearBefore || !farBefore || !nearAfter) throw new Error('the faces should be found');
    expect(nearBefore.box.width).toBeGreaterThan(farBefore.box.width * 1.2);
    expect(mouthOpening(nearBefore)).toBeGreaterThan(0.2);
    expect(mouthOpening(farBefore)).toBeGreaterThan(0.2);
    expect(nearAfter.box.x).toBeLessThan(WIDTH / 2);
    expect(mouthOpening(nearAfter)).toBeLessThan(0.1);
    // The far face's pixels are the recording's (the detector does not always find it a second time).
    const far = { left: 420, top: 140, width: 200, height: 110 };
    expect(regionDifference(before as Buffer, after as Buffer, far)).toBeLessThan(2.5);
  }, 60_000);

  it('refuses what is not a video as invalid media', async () => {
    const notVideo = path.join(scratch.dir, 'not-a-video.mp4');
    await writeFile(notVideo, 'these bytes are no video');
    await expect(
      reanimateLips({ videoPath: notVideo, visemes: NEW_SPEECH, workDir: path.join(scratch.dir, 'bad') }),
    ).rejects.toMatchObject({ failureCode: 'invalid_media' });
  });
});

// ---------------------------------------------------------------------------------------------------
// The pure parts

/** A face whose every mesh point is shifted by `dx`, with its lower lip `drop` pixels lower. */
function syntheticFace(dx: number, drop = 0, boxWidth = 200): FaceLandmarks {
  const mesh = Array.from({ length: MESH_POINTS }, (_, index) => [
    200 + dx + (index % 20) * 5,
    150 + Math.floor(index / 20) * 5,
    0,
  ]);
  const face = faceFromMesh(mesh, 0.95, [100 + dx, 50, boxWidth, boxWidth]);
  return {
    ...face,
    lips: {
      ...face.lips,
      lowerInner: face.lips.lowerInner.map((point) => ({ x: point.x, y: point.y + drop })),
    },
  };
}

describe('blendedMouth', () => {
  const track: VisemeCue[] = [
    { startMs: 0, endMs: 400, viseme: 'rest' },
    { startMs: 400, endMs: 800, viseme: 'open_wide' },
    { startMs: 800, endMs: 1000, viseme: 'rounded' },
  ];
  it('is the viseme itself away from changes, and glides across them', () => {
    expect(blendedMouth(track, 200, 100).opening).toBe(0);
    const wide = blendedMouth(track, 600, 100);
    expect(wide.opening).toBeCloseTo(FOOTAGE_MOUTHS.open_wide.opening, 9);
    expect(wide.openingSpan).toBeCloseTo(FOOTAGE_MOUTHS.open_wide.openingSpan, 9);
    expect(wide.opensFromPhoto).toBe(false);
    const openings = [340, 370, 400, 430, 460].map((time) => blendedMouth(track, time, 100).opening);
    for (let index = 1; index < openings.length; index++) {
      expect(openings[index]).toBeGreaterThan(openings[index - 1] as number);
    }
    expect(openings[2]).toBeCloseTo(FOOTAGE_MOUTHS.open_wide.opening / 2, 2);
    // Without a window, the frame's own viseme.
    expect(blendedMouth(track, 399, 0).opening).toBe(0);
    // Rounded takes over its own profile once it weighs more.
    expect(blendedMouth(track, 830, 100).openingProfile).toBe('round');
  });
  it('closes the mouth for rest and closed (the recording may have had it open)', () => {
    expect(FOOTAGE_MOUTHS.rest.opening).toBe(0);
    expect(FOOTAGE_MOUTHS.closed.opening).toBe(0);
    for (const shape of Object.values(FOOTAGE_MOUTHS)) expect(shape.opensFromPhoto).toBe(false);
  });
});

describe('spanStrength', () => {
  it('fades at span edges, not at the video start or an open end', () => {
    expect(spanStrength([{ startMs: 0, endMs: Number.POSITIVE_INFINITY }], 0, 80)).toBe(1);
    const spans = [{ startMs: 1000, endMs: 2000 }];
    expect(spanStrength(spans, 900, 80)).toBe(0);
    expect(spanStrength(spans, 1000, 80)).toBeCloseTo(0.5);
    expect(spanStrength(spans, 1040, 80)).toBe(1);
    expect(spanStrength(spans, 1980, 80)).toBeCloseTo(0.75);
    expect(spanStrength(spans, 2040, 80)).toBe(0);
    expect(spanStrength([{ startMs: 0, endMs: 500 }], 10, 80)).toBe(1);
  });
});

describe('detectionSchedule', () => {
  it('covers each span with a step to spare, merged, and stops where asked', () => {
    const schedule = detectionSchedule(
      [
        { startMs: 1000, endMs: 1200 },
        { startMs: 1240, endMs: 1400 },
      ],
      25,
      2,
      80,
      1000,
    );
    expect(schedule.ranges).toEqual([[21, 38]]);
    const frames = [...schedule.frames()];
    expect(frames[0]).toBe(21);
    expect(frames.at(-1)).toBe(38);
    const open = detectionSchedule([{ startMs: 0, endMs: Number.POSITIVE_INFINITY }], 25, 2, 80, 10);
    expect([...open.frames()]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('chooseFace', () => {
  it('takes the largest confident face, and says why none is usable', () => {
    const small = syntheticFace(0, 0, 80);
    const large = syntheticFace(10, 0, 120);
    const chosen = chooseFace([small, large], 640, 360);
    expect('face' in chosen && chosen.face).toBe(large);
    expect(chooseFace([], 640, 360)).toEqual({ reason: 'no_face', found: false });
    expect(chooseFace([syntheticFace(0, 0, 40)], 640, 360)).toEqual({
      reason: 'face_too_small',
      found: true,
    });
    expect(chooseFace([syntheticFace(0, 0, 120)], 250, 200)).toEqual({ reason: 'face_cut_off', found: true });
    const turned = syntheticFace(0, 0, 120);
    const right = turned.mesh[33] as { x: number; y: number };
    const left = turned.mesh[263] as { x: number; y: number };
    // The nose tip 0.4 of the eyes' distance off their middle, towards the left eye: about 36°.
    turned.mesh[1] = {
      x: (right.x + left.x) / 2 + 0.4 * (left.x - right.x),
      y: (right.y + left.y) / 2 + 0.4 * (left.y - right.y),
    };
    expect(headTurn(turned)).toBeCloseTo(0.4);
    expect(headTurn(large)).toBeLessThan(0.1);
    expect(chooseFace([turned], 640, 360)).toEqual({ reason: 'face_turned', found: true });
  });
});

describe('faceAtFrame', () => {
  const at = (frame: number, face?: FaceLandmarks): Detection => ({
    frame,
    choice: face ? { face } : { reason: 'no_face', found: false },
  });
  const x = (choice: ReturnType<typeof faceAtFrame>) =>
    'face' in choice ? (choice.face.mesh[0]?.x ?? Number.NaN) : Number.NaN;

  it('interpolates between detections, bridging one miss but not two', () => {
    const detections = [at(0, syntheticFace(0)), at(2, syntheticFace(10)), at(4), at(6, syntheticFace(30))];
    expect(x(faceAtFrame(detections, 1, 2))).toBeCloseTo(205);
    expect(x(faceAtFrame(detections, 5, 2))).toBeCloseTo(225);
    const twoMisses = [at(0, syntheticFace(0)), at(2), at(4), at(6, syntheticFace(30))];
    expect(x(faceAtFrame(twoMisses, 1, 2))).toBeCloseTo(200);
    expect(faceAtFrame(twoMisses, 3, 2)).toEqual({ reason: 'no_face', found: false });
  });

  it('takes the mouth from the detection it looks like, where the head is', () => {
    const shut = syntheticFace(0, 0);
    const open = syntheticFace(10, 12);
    const detections = [at(0, shut), at(2, open)];
    const looksOpen = faceAtFrame(detections, 1, 2, new Map([[1, 1]]));
    if (!('face' in looksOpen)) throw new Error('no face');
    const lip = (face: FaceLandmarks) => face.lips.lowerInner[5] as { x: number; y: number };
    // Open like the second detection, moved halfway with the head.
    expect(lip(looksOpen.face).y).toBeCloseTo(lip(open).y);
    expect(lip(looksOpen.face).x).toBeCloseTo(lip(shut).x + 5);
    const halfway = faceAtFrame(detections, 1, 2);
    if (!('face' in halfway)) throw new Error('no face');
    expect(lip(halfway.face).y).toBeCloseTo(lip(shut).y + 6);
  });
});

describe('SteadyLips', () => {
  /** A 100 px wide mouth, shut, whose lips are this thick at the middle. */
  const mouth = (upper: number, lower: number): MouthGeometry => {
    const flat = (t: number) =>
      new ColumnContour([
        { s: -50, t },
        { s: 50, t },
      ]);
    return {
      frame: featureFrame({ x: 0, y: 0 }, { x: 100, y: 0 }, { x: 50, y: 50 }),
      width: 100,
      innerStart: -40,
      innerEnd: 40,
      upperOuter: flat(-upper),
      upperInner: flat(0),
      lowerInner: flat(0),
      lowerOuter: flat(lower),
      jaw: flat(40),
      noseBase: -30,
      lipColour: [150, 90, 90],
    };
  };
  it('keeps each lip near its running thickness, within limits, and starts again after the face is lost', () => {
    const lips = new SteadyLips();
    const shape = FOOTAGE_MOUTHS.rest;
    expect(lips.steadied(shape, mouth(10, 12))).toMatchObject({ upperLipThickness: 1, lowerLipThickness: 1 });
    // The old speech stretched the lips thin: they are drawn thicker again (at most 1.35×).
    const thin = lips.steadied(shape, mouth(5, 11));
    expect(thin.upperLipThickness).toBeCloseTo(1.35);
    expect(thin.lowerLipThickness).toBeCloseTo((12 + (11 - 12) * 0.1) / 11);
    lips.forget();
    expect(lips.steadied(shape, mouth(5, 11))).toMatchObject({ upperLipThickness: 1, lowerLipThickness: 1 });
  });
});

describe('steadyInnerEdges', () => {
  it('smooths a ragged inner lip edge along the mouth, and leaves the rest', () => {
    // A seam between the lips that zigzags by 2 px every pixel (a stubbly mouth's shadows).
    const ragged = new ColumnContour(
      Array.from({ length: 101 }, (_, index) => ({ s: index - 50, t: index % 2 ? 2 : -2 })),
    );
    const flat = new ColumnContour([
      { s: -50, t: -10 },
      { s: 50, t: -10 },
    ]);
    const geometry: MouthGeometry = {
      frame: featureFrame({ x: 0, y: 0 }, { x: 100, y: 0 }, { x: 50, y: 50 }),
      width: 100,
      innerStart: -40,
      innerEnd: 40,
      upperOuter: flat,
      upperInner: ragged,
      lowerInner: ragged,
      lowerOuter: flat,
      jaw: flat,
      noseBase: -30,
      lipColour: [150, 90, 90],
    };
    const steady = steadyInnerEdges(geometry);
    for (let s = -30; s <= 30; s += 0.5) {
      expect(Math.abs(steady.upperInner.at(s))).toBeLessThan(0.5);
      expect(Math.abs(steady.lowerInner.at(s))).toBeLessThan(0.5);
    }
    expect(steady.upperOuter).toBe(flat);
    expect(steady.jaw).toBe(flat);
  });
});
