/**
 * An `image` video of a photo with a face talks: the photo's own mouth and eyes are warped into sprites
 * (vision/photo-presenter.ts) and shown per frame from the speech's visemes. Verified with the landmark
 * engine itself on the frames of the written video: the mouth is open on loud vowels and shut on m/b/p
 * and in the pauses. The photo is one of our own stock portraits laid over a textured backdrop, so the
 * test owns every pixel of it; the README names a public-domain photo to try by hand.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderLookPhoto } from '../../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../../lambdas/catalog/stock-avatars.js';
import { engineVoiceOf, findStockVoice } from '../../lambdas/catalog/stock-voices.js';
import { ffmpegPath, runProcess } from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { frameVisemes } from '../../lambdas/engines/composition/presenter-animation.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { createEspeakEngine } from '../../lambdas/engines/speech/espeak-engine.js';
import { VISEMES, type Viseme } from '../../lambdas/engines/speech/visemes.js';
import { findFaces, mouthOpening } from '../../lambdas/engines/vision/face-landmarks.js';
import { getVideo } from '../../lambdas/videos/videos.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const SCRIPT = 'Papa, are we far from the park? Maybe. Bob bought a map, and we can all go.';
const FPS = 25;
const look = findStockLook('maya-office');

let api: TestStack;
let scratch: string;

beforeAll(async () => {
  api = await startTestStack({ engines: 'reference', stepFunctionsTimeScale: 0.001 });
  scratch = await mkdtemp(join(tmpdir(), 'talking-photo-'));
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await rm(scratch, { recursive: true, force: true });
});

/**
 * Makes an image video of the look's photo and waits for it: the downloaded video file and how the
 * render says its presenter was animated.
 */
async function renderPhotoVideo(
  body: Record<string, unknown>,
  file: string,
): Promise<{ file: string; presenter: string | null | undefined }> {
  if (!look) throw new Error('no stock look');
  const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
    body: {
      type: 'image',
      image: {
        type: 'base64',
        media_type: 'image/jpeg',
        data: (await renderLookPhoto(look)).toString('base64'),
      },
      voice_id: look.defaultVoiceId,
      ...body,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const videoId = created.body.data.video_id;
  let video: { status: string; failure_message: string | null; video_url: string | null } | undefined;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    video = (await api.call<{ data: NonNullable<typeof video> }>('GET', `/v3/videos/${videoId}`)).body.data;
    if (video.status === 'completed' || video.status === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(video?.failure_message).toBeNull();
  expect(video?.status).toBe('completed');
  await writeFile(file, Buffer.from(await (await fetch(video?.video_url as string)).arrayBuffer()));
  return { file, presenter: (await getVideo(api.workspaceId, videoId, true))?.engines.presenter };
}

/** Frames `numbers` of the video as raw RGB pictures, in the order asked. */
async function framesOf(
  video: string,
  numbers: number[],
): Promise<{ data: Uint8Array; width: number; height: number }[]> {
  const directory = join(scratch, 'frames');
  await mkdir(directory, { recursive: true });
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  await runProcess(
    ffmpegPath(),
    [
      '-v',
      'error',
      '-i',
      video,
      '-vf',
      `select='${sorted.map((n) => `eq(n,${n})`).join('+')}'`,
      '-vsync',
      '0',
      join(directory, 'frame-%04d.png'),
    ],
    { timeoutMs: 60_000 },
  );
  const files = (await readdir(directory)).sort();
  const byNumber = new Map<number, { data: Uint8Array; width: number; height: number }>();
  for (const [index, name] of files.entries()) {
    const { data, info } = await sharp(join(directory, name)).raw().toBuffer({ resolveWithObject: true });
    byNumber.set(sorted[index] as number, { data, width: info.width, height: info.height });
  }
  return numbers.map((n) => {
    const frame = byNumber.get(n);
    if (!frame) throw new Error(`frame ${n} was not extracted`);
    return frame;
  });
}

describe('a photo presenter', () => {
  it('opens its mouth on loud vowels and shuts it on m/b/p and in pauses', async () => {
    if (!look) throw new Error('no stock look');
    const voiceId = look.defaultVoiceId;
    const { file, presenter } = await renderPhotoVideo({ script: SCRIPT }, join(scratch, 'photo.mp4'));
    expect(presenter).toBe('photo_landmarks');

    // The same speech the render made (eSpeak is deterministic), and the mouth each frame showed.
    const speaker = createEspeakEngine();
    const voice = findStockVoice(voiceId);
    const speech = await speaker
      .synthesize({ text: SCRIPT, voiceId: (voice && engineVoiceOf(voice, 'espeak')) as string })
      .finally(() => speaker.close());
    const frameCount = Math.round((await probeMedia(file)).durationSeconds * FPS);
    const shown = frameVisemes(speech.visemes, frameCount, FPS);
    // Up to six frames spread over all that show the viseme: the presenter blinks (150 ms, seeded by
    // the random video id), and the landmark engine finds no face with the eyes shut, so frames close
    // together could all fall in one blink.
    const framesShowing = (viseme: Viseme) => {
      const all = shown.flatMap((value, frame) =>
        value === viseme && shown[frame - 1] === viseme ? [frame] : [],
      );
      const step = Math.max(1, Math.floor(all.length / 6));
      return all.filter((_, index) => index % step === 0).slice(0, 6);
    };
    const groups = {
      open_wide: framesShowing(VISEMES.open_wide),
      closed: framesShowing(VISEMES.closed),
      rest: framesShowing(VISEMES.rest),
    };
    for (const frames of Object.values(groups)) expect(frames.length).toBeGreaterThanOrEqual(3);
    const measured: Record<string, number> = {};
    for (const [name, frames] of Object.entries(groups)) {
      const openings: number[] = [];
      let faceless = 0;
      for (const frame of await framesOf(file, frames)) {
        const faces = await findFaces({ ...frame, channels: 3 });
        expect(faces.length).toBeLessThanOrEqual(1);
        const face = faces[0];
        if (face) openings.push(mouthOpening(face));
        else faceless++;
      }
      // A blink hides the face in at most the frames one 150 ms blink covers among those spread out.
      expect(faceless, `${name}: frames without a face`).toBeLessThanOrEqual(2);
      expect(openings.length).toBeGreaterThanOrEqual(2);
      measured[name] = openings.reduce((sum, value) => sum + value, 0) / openings.length;
      await rm(join(scratch, 'frames'), { recursive: true, force: true });
    }
    console.log(
      `mouth opening measured on the video's frames: ${Object.entries(measured)
        .map(([name, value]) => `${name} ${value.toFixed(3)}`)
        .join(', ')}`,
    );
    expect(measured.open_wide).toBeGreaterThan((measured.rest as number) + 0.05);
    expect(measured.open_wide).toBeGreaterThan((measured.closed as number) + 0.05);
  }, 120_000);

  it('is cut out of its backdrop in a transparent WebM, and still talks', async () => {
    const { file, presenter } = await renderPhotoVideo(
      { script: 'Hello there.', output_format: 'webm' },
      join(scratch, 'photo.webm'),
    );
    expect(presenter).toBe('photo_landmarks, person_cut_out');
    // libvpx decodes the alpha channel that ffmpeg's own VP9 decoder drops.
    const frame = join(scratch, 'frame.png');
    await runProcess(
      ffmpegPath(),
      ['-v', 'error', '-c:v', 'libvpx-vp9', '-i', file, '-frames:v', '1', '-pix_fmt', 'rgba', frame],
      { timeoutMs: 30_000 },
    );
    const { data, info } = await sharp(frame).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const alphaAt = (x: number, y: number) => data[(y * info.width + x) * 4 + 3] as number;
    // The striped backdrop is gone; the face (the middle of the frame, the portrait filling it) is opaque.
    expect(alphaAt(20, 20)).toBeLessThan(10);
    expect(alphaAt(info.width - 20, 20)).toBeLessThan(10);
    expect(alphaAt(Math.round(info.width / 2), Math.round(info.height * 0.45))).toBeGreaterThan(245);
  }, 120_000);
});
