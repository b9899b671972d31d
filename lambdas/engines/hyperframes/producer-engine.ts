/**
 * The reference HyperFrames engine: HyperFrames' own producer (`@hyperframes/producer`,
 * `createRenderJob` + `executeRenderJob`), with the Chromium of `@sparticuz/chromium`
 * (chromium-runtime.ts) and the npm ffmpeg/ffprobe (`HYPERFRAMES_FFMPEG_PATH`/`HYPERFRAMES_FFPROBE_PATH`;
 * it would otherwise look in /usr/bin). Frames are captured with Chrome's BeginFrame
 * (`PRODUCER_FORCE_SCREENSHOT=false`: about twice as fast as screenshots, and it works with this
 * Chromium). No network: see offline-network.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { JobFailure } from '../../core/errors.js';
import { ffmpegPath, ffprobePath } from '../composition/ffmpeg-binaries.js';
import { chromiumInstall, writeChromiumLauncher } from './chromium-runtime.js';
import {
  HYPERFRAMES_FAILURE,
  type HyperframesEngine,
  type HyperframesRenderRequest,
  type HyperframesRenderResult,
} from './hyperframes-engine.js';
import { type NetworkRecord, startBlockingProxy, withOfflineNetwork } from './offline-network.js';

/** What a Chromium that cannot start says (the producer passes puppeteer's launch errors on). */
const LAUNCH_FAILURE =
  /Failed to launch the browser process|Browser was not found|error while loading shared libraries|spawn \S+ (ENOENT|EACCES)|Could not find Chrom/i;

/** The first lines of an error, for a failure message. */
function firstLines(error: unknown, lines = 3): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n').filter(Boolean).slice(0, lines).join(' ').slice(0, 600);
}

function networkBlocked(record: NetworkRecord): JobFailure {
  const named = record.blocked.slice(0, 5).join(', ');
  const more = record.blocked.length > 5 ? ` and ${record.blocked.length - 5} more` : '';
  return new JobFailure(
    HYPERFRAMES_FAILURE.networkBlocked,
    `The composition requested ${named}${more}: renders have no network access. Put the file in the project zip and refer to it by a relative path (GSAP from cdn.jsdelivr.net, cdnjs or unpkg is the only remote script served, from a vendored copy).`,
  );
}

/**
 * Why a render stopped, as the job's failure: a request to the network (whatever error the producer
 * threw after the abort), the deadline, a Chromium that could not start, else the producer's own
 * message about the composition.
 */
export function renderFailure(
  error: unknown,
  state: { record: NetworkRecord; timedOut: boolean; timeoutMs: number },
): JobFailure {
  if (error instanceof JobFailure) return error;
  if (state.record.blocked.length > 0) return networkBlocked(state.record);
  if (state.timedOut) {
    return new JobFailure(
      HYPERFRAMES_FAILURE.timeout,
      `The render took longer than ${Math.round(state.timeoutMs / 1000)} s (HYPERFRAMES_RENDER_TIMEOUT_MS) and was stopped; a shorter composition, a lower fps or quality "draft" renders faster.`,
    );
  }
  if (LAUNCH_FAILURE.test(firstLines(error, 20))) {
    return new JobFailure(
      HYPERFRAMES_FAILURE.engineUnavailable,
      `Chromium could not start: ${firstLines(error)}`,
      {
        cause: error,
      },
    );
  }
  return new JobFailure(
    HYPERFRAMES_FAILURE.renderFailed,
    `The composition could not be rendered: ${firstLines(error)}`,
    {
      cause: error,
    },
  );
}

class ProducerHyperframesEngine implements HyperframesEngine {
  readonly name = 'producer';

  async render(request: HyperframesRenderRequest): Promise<HyperframesRenderResult> {
    const chromium = await chromiumInstall().catch((error: unknown) => {
      throw new JobFailure(
        HYPERFRAMES_FAILURE.engineUnavailable,
        `Chromium could not be unpacked from @sparticuz/chromium: ${firstLines(error)}`,
        { cause: error },
      );
    });
    process.env.HYPERFRAMES_FFMPEG_PATH = ffmpegPath();
    process.env.HYPERFRAMES_FFPROBE_PATH = ffprobePath();
    process.env.PRODUCER_FORCE_SCREENSHOT = 'false';
    const { createConsoleLogger, createRenderJob, executeRenderJob } = await import('@hyperframes/producer');

    const record: NetworkRecord = { blocked: [], served: [] };
    const stop = new AbortController();
    let timedOut = false;
    const onBlocked = () => stop.abort();
    const proxy = await startBlockingProxy(record, onBlocked);
    const launcherDir = await mkdtemp(path.join(path.dirname(request.outputPath), 'chromium-'));
    const deadline = setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, request.timeoutMs);
    let totalFrames = 0;
    try {
      const launcher = await writeChromiumLauncher(chromium, launcherDir, proxy.port);
      const job = createRenderJob({
        fps: request.fps,
        quality: request.quality,
        format: request.format,
        entryFile: request.entryFile,
        variables: request.variables,
        logger: createConsoleLogger('warn'),
        producerConfig: { chromePath: launcher } as Parameters<typeof createRenderJob>[0]['producerConfig'],
        ...(request.outputPreset
          ? {
              outputResolution: request.outputPreset as Parameters<
                typeof createRenderJob
              >[0]['outputResolution'],
            }
          : {}),
      });
      await withOfflineNetwork(record, onBlocked, () =>
        executeRenderJob(
          job,
          request.projectDir,
          request.outputPath,
          (progress) => {
            totalFrames = progress.totalFrames ?? totalFrames;
            if (progress.framesRendered !== undefined && totalFrames > 0)
              request.onProgress(progress.framesRendered, totalFrames);
          },
          stop.signal,
        ),
      );
      if (record.blocked.length > 0)
        throw renderFailure(undefined, { record, timedOut, timeoutMs: request.timeoutMs });
      return {
        totalFrames,
        description: `hyperframes producer (Chromium ${path.basename(chromium.executable)}, BeginFrame capture)${
          record.served.length ? `; served from vendored gsap: ${record.served.join(', ')}` : ''
        }`,
      };
    } catch (error) {
      throw renderFailure(error, { record, timedOut, timeoutMs: request.timeoutMs });
    } finally {
      clearTimeout(deadline);
      await proxy.close();
      await rm(launcherDir, { recursive: true, force: true });
    }
  }
}

export function createProducerHyperframesEngine(): HyperframesEngine {
  return new ProducerHyperframesEngine();
}
