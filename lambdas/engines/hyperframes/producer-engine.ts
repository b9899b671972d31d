/**
 * The reference HyperFrames engine: HyperFrames' own producer (`@hyperframes/producer`: in one pass
 * `createRenderJob` + `executeRenderJob`; in chunks its distributed primitives `planV2`,
 * `renderChunkV2`, `assembleV2`, the design of `@hyperframes/aws-lambda`), with the Chromium of `@sparticuz/chromium`
 * (chromium-runtime.ts) and the npm ffmpeg/ffprobe (`HYPERFRAMES_FFMPEG_PATH`/`HYPERFRAMES_FFPROBE_PATH`;
 * it would otherwise look in /usr/bin). Frames are captured with Chrome's BeginFrame
 * (`PRODUCER_FORCE_SCREENSHOT=false`: about twice as fast as screenshots, and it works with this
 * Chromium). No network: see offline-network.ts.
 */
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JobFailure } from '../../core/errors.js';
import { ffmpegPath, ffprobePath } from '../composition/ffmpeg-binaries.js';
import { type ChromiumInstall, chromiumInstall, writeChromiumLauncher } from './chromium-runtime.js';
import { authoredComposition } from './composition-root.js';
import {
  HYPERFRAMES_FAILURE,
  type HyperframesEngine,
  type HyperframesPlan,
  type HyperframesPlanRequest,
  type HyperframesPlanRole,
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
      `A step of the render (its plan or one chunk) took longer than ${Math.round(state.timeoutMs / 1000)} s (HYPERFRAMES_RENDER_TIMEOUT_MS) and was stopped; a shorter composition, a lower fps or quality "draft" renders faster.`,
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

/**
 * Chromium unpacked and the producer's environment set: the npm ffmpeg/ffprobe, BeginFrame capture, and
 * the npm ffmpeg first on PATH (the distributed primitives read the plan's ffmpeg version from the
 * `ffmpeg` on PATH, and a chunk refuses a plan made with another build).
 */
async function prepareProducer(): Promise<ChromiumInstall> {
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
  const ffmpegDirectory = path.dirname(ffmpegPath());
  if (!process.env.PATH?.split(path.delimiter).includes(ffmpegDirectory)) {
    process.env.PATH = [ffmpegDirectory, process.env.PATH].filter(Boolean).join(path.delimiter);
  }
  return chromium;
}

/** The frame rates the producer's distributed renders take; another renders as a plan of one pass. */
const CHUNKED_FPS = [24, 30, 60] as const;
const isChunkedFps = (fps: number): fps is (typeof CHUNKED_FPS)[number] =>
  (CHUNKED_FPS as readonly number[]).includes(fps);

/** The plan file of a render done in one pass (one chunk's length or less, or a frame rate the chunked renderer does not take). */
interface OnePassPlan {
  one_pass: Omit<
    HyperframesPlanRequest,
    'planDir' | 'projectDir' | 'timeoutMs' | 'chunkFrames' | 'maxChunks'
  >;
  /** The project's files, under `project/`. */
  files: string[];
}
const PLAN_FILE = 'plan.json';
const ONE_PASS_PROJECT = 'project';

async function readOnePassPlan(planDir: string): Promise<OnePassPlan | undefined> {
  const plan = JSON.parse(await readFile(path.join(planDir, PLAN_FILE), 'utf8')) as Partial<OnePassPlan>;
  return plan.one_pass && plan.files ? (plan as OnePassPlan) : undefined;
}

/** The files under `directory`, relative and `/`-separated. */
async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'),
    );
}

/**
 * The browser of chunk renders, one per process: `renderChunk` takes no browser path (it reads
 * `PRODUCER_HEADLESS_SHELL_PATH`, a process-wide setting) and no abort signal, so concurrent chunks of
 * one process share one launcher and one blocking proxy. A request the proxy refuses is recorded for
 * every chunk running then: on Lambda that is the one chunk of the invocation; locally a chunk of
 * another render running at the same moment could be failed too (never passed). The Plan step already
 * loaded the page with a proxy of its own, so a composition that asks the network fails there first.
 */
interface ChunkBrowser {
  active: Set<NetworkRecord>;
}
let chunkBrowser: Promise<ChunkBrowser> | undefined;

/**
 * One chunk at a time per process: two `renderChunkV2` calls at once in one process never finish
 * (producer 0.8.33; both browsers start, then neither captures). On Lambda a process renders one chunk
 * anyway; the local stack, which runs every invocation in its one process, renders its chunks in turn.
 */
let chunkTurn: Promise<unknown> = Promise.resolve();
function inTurn<T>(work: () => Promise<T>): Promise<T> {
  const turn = chunkTurn.then(work, work);
  chunkTurn = turn.catch(() => undefined);
  return turn;
}

function startChunkBrowser(): Promise<ChunkBrowser> {
  chunkBrowser ??= (async () => {
    const chromium = await prepareProducer();
    const active = new Set<NetworkRecord>();
    const shared: NetworkRecord = { blocked: [], served: [] };
    const proxy = await startBlockingProxy(shared, (url) => {
      for (const record of active) if (!record.blocked.includes(url)) record.blocked.push(url);
    });
    // Kept for the process's lifetime, never closed: it must not keep the process alive by itself.
    proxy.unref();
    const launcherDir = await mkdtemp(path.join(tmpdir(), 'hyperframes-chunk-chromium-'));
    process.env.PRODUCER_HEADLESS_SHELL_PATH = await writeChromiumLauncher(chromium, launcherDir, proxy.port);
    return { active };
  })().catch((error: unknown) => {
    chunkBrowser = undefined;
    throw error;
  });
  return chunkBrowser;
}

/** The frames of the length the composition's root states (`data-duration`), if it states one. */
async function statedFrames(request: HyperframesPlanRequest): Promise<number | undefined> {
  const html = await readFile(path.join(request.projectDir, request.entryFile), 'utf8');
  const seconds = authoredComposition(html).durationSeconds;
  return seconds === null ? undefined : Math.round(seconds * request.fps);
}

/** A browser session of one render or plan, run by `inOfflineBrowser`. */
interface OfflineBrowserSession {
  /** Chromium's launcher for this session (its blocking proxy, libraries and fonts). */
  launcher: string;
  /** Aborted when the page asks for the network or the deadline passes. */
  signal: AbortSignal;
  record: NetworkRecord;
  /** Runs `work` with the process's own requests held to the vendored copies (offline-network.ts). */
  offline<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Runs `work` with a Chromium launcher behind a blocking proxy, a deadline of `timeoutMs`, and the
 * network guard: a blocked request or the deadline fails it as `renderFailure` says; the proxy and the
 * launcher's directory (in `scratchDir`) are removed however it ends.
 */
async function inOfflineBrowser<T>(
  chromium: ChromiumInstall,
  scratchDir: string,
  timeoutMs: number,
  work: (session: OfflineBrowserSession) => Promise<T>,
): Promise<T> {
  const record: NetworkRecord = { blocked: [], served: [] };
  const stop = new AbortController();
  let timedOut = false;
  const onBlocked = () => stop.abort();
  const proxy = await startBlockingProxy(record, onBlocked);
  const launcherDir = await mkdtemp(path.join(scratchDir, 'chromium-'));
  const deadline = setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, timeoutMs);
  try {
    const launcher = await writeChromiumLauncher(chromium, launcherDir, proxy.port);
    const result = await work({
      launcher,
      signal: stop.signal,
      record,
      offline: (inner) => withOfflineNetwork(record, onBlocked, inner),
    });
    if (record.blocked.length > 0) throw renderFailure(undefined, { record, timedOut, timeoutMs });
    return result;
  } catch (error) {
    throw renderFailure(error, { record, timedOut, timeoutMs });
  } finally {
    clearTimeout(deadline);
    await proxy.close();
    await rm(launcherDir, { recursive: true, force: true });
  }
}

/** What the description adds when scripts were served from the vendored copies. */
function servedNote(record: NetworkRecord): string {
  return record.served.length ? `; served from vendored gsap: ${record.served.join(', ')}` : '';
}

class ProducerHyperframesEngine implements HyperframesEngine {
  readonly name = 'producer';

  async render(request: HyperframesRenderRequest): Promise<HyperframesRenderResult> {
    const chromium = await prepareProducer();
    const { createConsoleLogger, createRenderJob, executeRenderJob } = await import('@hyperframes/producer');
    let totalFrames = 0;
    return inOfflineBrowser(
      chromium,
      path.dirname(request.outputPath),
      request.timeoutMs,
      async (session) => {
        const job = createRenderJob({
          fps: request.fps,
          quality: request.quality,
          format: request.format,
          entryFile: request.entryFile,
          variables: request.variables,
          logger: createConsoleLogger('warn'),
          producerConfig: { chromePath: session.launcher } as Parameters<
            typeof createRenderJob
          >[0]['producerConfig'],
          ...(request.outputPreset
            ? {
                outputResolution: request.outputPreset as Parameters<
                  typeof createRenderJob
                >[0]['outputResolution'],
              }
            : {}),
        });
        await session.offline(() =>
          executeRenderJob(
            job,
            request.projectDir,
            request.outputPath,
            (progress) => {
              totalFrames = progress.totalFrames ?? totalFrames;
              if (progress.framesRendered !== undefined && totalFrames > 0)
                request.onProgress(progress.framesRendered, totalFrames);
            },
            session.signal,
          ),
        );
        return {
          totalFrames,
          description: `hyperframes producer (Chromium ${path.basename(chromium.executable)}, BeginFrame capture)${servedNote(session.record)}`,
        };
      },
    );
  }

  async plan(request: HyperframesPlanRequest): Promise<HyperframesPlan> {
    if (!isChunkedFps(request.fps)) {
      return this.planOnePass(request, `${request.fps} fps: chunks take 24, 30 or 60`);
    }
    // A composition that states a length of one chunk or less renders in one pass: planning it would
    // start the browser once more for nothing (a render of a few seconds would take twice as long).
    const stated = await statedFrames(request);
    if (stated !== undefined && stated <= request.chunkFrames) {
      return this.planOnePass(request, `${stated} frames: one chunk of at most ${request.chunkFrames}`);
    }
    const chromium = await prepareProducer();
    const { createConsoleLogger, resolveConfig } = await import('@hyperframes/producer');
    const { buildChunkSlices, planV2, resolveChunkPlan } = await import('@hyperframes/producer/distributed');
    return inOfflineBrowser(chromium, path.dirname(request.planDir), request.timeoutMs, async (session) => {
      const planned = await session.offline(() =>
        planV2(
          request.projectDir,
          {
            fps: request.fps as (typeof CHUNKED_FPS)[number],
            width: request.width,
            height: request.height,
            format: request.format,
            quality: request.quality,
            entryFile: request.entryFile,
            variables: request.variables,
            chunkSize: request.chunkFrames,
            maxParallelChunks: request.maxChunks,
            // Every worker runs the same image (the same fonts), which is what the producer's refusal
            // of system fonts guards against elsewhere; a one-pass render takes them too.
            rejectOnSystemFonts: false,
            failClosedFontFetch: false,
            logger: createConsoleLogger('warn'),
            abortSignal: session.signal,
            producerConfig: { ...resolveConfig(), chromePath: session.launcher },
            ...(request.outputPreset
              ? { outputResolution: request.outputPreset as Parameters<typeof planV2>[1]['outputResolution'] }
              : {}),
          },
          request.planDir,
        ),
      );
      const { chunkCount, effectiveChunkSize } = resolveChunkPlan(
        planned.totalFrames,
        request.chunkFrames,
        request.maxChunks,
      );
      if (chunkCount !== planned.chunkCount) {
        throw new Error(`the plan has ${planned.chunkCount} chunks where ${chunkCount} were computed`);
      }
      return {
        totalFrames: planned.totalFrames,
        chunks: buildChunkSlices(planned.totalFrames, chunkCount, effectiveChunkSize).map(
          ({ startFrame, endFrame }) => ({ startFrame, endFrame }),
        ),
        description: `hyperframes producer ${planned.producerVersion}, ${chunkCount} chunk${chunkCount === 1 ? '' : 's'} of ${effectiveChunkSize} frames (Chromium ${path.basename(chromium.executable)}, BeginFrame capture)${servedNote(session.record)}`,
      };
    });
  }

  /**
   * A frame rate the chunked renderer does not take (it renders 24, 30 and 60 fps): a plan of one chunk
   * that is the whole render in one pass, the project carried in the plan.
   */
  private async planOnePass(request: HyperframesPlanRequest, reason: string): Promise<HyperframesPlan> {
    const {
      planDir,
      projectDir,
      timeoutMs: _timeout,
      chunkFrames: _size,
      maxChunks: _max,
      ...settings
    } = request;
    await mkdir(planDir, { recursive: true });
    await cp(projectDir, path.join(planDir, ONE_PASS_PROJECT), { recursive: true });
    const files = (await filesUnder(path.join(planDir, ONE_PASS_PROJECT))).map(
      (file) => `${ONE_PASS_PROJECT}/${file}`,
    );
    const plan: OnePassPlan = { one_pass: settings, files };
    await writeFile(path.join(planDir, PLAN_FILE), JSON.stringify(plan));
    // The frame count is the producer's to find while it renders; this is the composition's stated one.
    const stated = Math.max(1, (await statedFrames(request)) ?? request.fps);
    return {
      totalFrames: stated,
      chunks: [{ startFrame: 0, endFrame: stated }],
      description: `hyperframes producer in one pass (${reason})`,
    };
  }

  async planFiles(planDir: string, role: HyperframesPlanRole): Promise<string[]> {
    const onePass = await readOnePassPlan(planDir);
    if (onePass) return role === 'assembler' ? [] : onePass.files;
    const { listPlanV2ArtifactsForTarget, readPlanV2Manifest } = await import(
      '@hyperframes/producer/distributed'
    );
    const manifest = readPlanV2Manifest(planDir);
    const artifacts = listPlanV2ArtifactsForTarget(
      manifest,
      role === 'assembler' ? { role: 'assembler' } : { role: 'chunk', chunkIndex: role.chunk },
    );
    // The producer's content-addressed layout (planV2BlobPath): artifacts/sha256/<2 hex>/<digest>.
    return [...new Set(artifacts.map(({ sha256 }) => `artifacts/sha256/${sha256.slice(0, 2)}/${sha256}`))];
  }

  async renderChunk(
    planDir: string,
    chunkIndex: number,
    outputPath: string,
    timeoutMs: number,
  ): Promise<number> {
    const onePass = await readOnePassPlan(planDir);
    if (onePass) {
      const result = await this.render({
        ...onePass.one_pass,
        projectDir: path.join(planDir, ONE_PASS_PROJECT),
        outputPath,
        timeoutMs,
        onProgress: () => undefined,
      });
      return result.totalFrames;
    }
    return inTurn(() => this.renderPlannedChunk(planDir, chunkIndex, outputPath, timeoutMs));
  }

  private async renderPlannedChunk(
    planDir: string,
    chunkIndex: number,
    outputPath: string,
    timeoutMs: number,
  ): Promise<number> {
    const browser = await startChunkBrowser();
    const { renderChunkV2 } = await import('@hyperframes/producer/distributed');
    const record: NetworkRecord = { blocked: [], served: [] };
    let timedOut = false;
    let deadline: NodeJS.Timeout | undefined;
    browser.active.add(record);
    try {
      // renderChunkV2 takes no abort signal: past the deadline the step fails (on Lambda the function's
      // own timeout ends the browser; locally it finishes its chunk unseen).
      const timeout = new Promise<never>((_, reject) => {
        deadline = setTimeout(() => {
          timedOut = true;
          reject(new Error('deadline'));
        }, timeoutMs);
      });
      const result = await Promise.race([
        withOfflineNetwork(
          record,
          () => undefined,
          () => renderChunkV2(planDir, chunkIndex, outputPath),
        ),
        timeout,
      ]);
      if (record.blocked.length > 0) throw renderFailure(undefined, { record, timedOut, timeoutMs });
      if (result.outputKind !== 'file') throw new Error(`chunk ${chunkIndex} is not a video file`);
      if (result.outputPath !== outputPath) await copyFile(result.outputPath, outputPath);
      return result.framesEncoded;
    } catch (error) {
      throw renderFailure(error, { record, timedOut, timeoutMs });
    } finally {
      clearTimeout(deadline);
      browser.active.delete(record);
    }
  }

  async assemble(planDir: string, chunkPaths: readonly string[], outputPath: string): Promise<void> {
    if (await readOnePassPlan(planDir)) {
      const [only] = chunkPaths;
      if (chunkPaths.length !== 1 || !only) throw new Error('a one-pass plan has one chunk');
      await copyFile(only, outputPath);
      return;
    }
    await prepareProducer();
    const { assembleV2 } = await import('@hyperframes/producer/distributed');
    try {
      await assembleV2(planDir, chunkPaths, outputPath);
    } catch (error) {
      throw new JobFailure(
        HYPERFRAMES_FAILURE.renderFailed,
        `The chunks could not be joined: ${firstLines(error)}`,
        { cause: error },
      );
    }
  }
}

export function createProducerHyperframesEngine(): HyperframesEngine {
  return new ProducerHyperframesEngine();
}
