/**
 * The reference speech engine: eSpeak NG compiled to WebAssembly (`@echogarden/espeak-ng-emscripten`).
 *
 * Licensing: the package is GPL-3.0, so it runs in a `node:worker_threads` worker (espeak-worker.ts)
 * and this module never imports it, statically or dynamically; it only exchanges messages with the
 * worker. One worker per engine instance, started on first use and reused; requests queue in the
 * worker and run one at a time. The worker does not keep the process alive while idle.
 *
 * Settings (see speech-engine.ts for the shared units):
 * - speed 1 = eSpeak's default 175 words per minute; the rate is `round(175 * speed)` wpm.
 * - pitch is added to eSpeak's pitch base 50 (scale 0 to 100): -50 is the lowest eSpeak pitch, +50 the
 *   highest. eSpeak's scale is roughly linear in Hz, not in semitones.
 * - volume scales the 16-bit samples (clipped).
 * - intonation scales eSpeak's pitch range (0 to 100, normal 50): `round(50 * intonation)`.
 *
 * Audio: 22,050 Hz mono 16-bit PCM. Word timings come from eSpeak's word-boundary events, which carry
 * the exact position in the generated audio, so they match the audio to the millisecond. The viseme
 * track comes the same way from eSpeak's phoneme events (one per phoneme, IPA, with its audio position;
 * an empty phoneme is a pause), mapped by visemes.ts.
 *
 * Deployment: the worker runs `espeak-worker.mjs` (or `.js`) next to this module when one exists (a
 * bundled build must emit the worker as its own entry and keep the package external: it reads
 * `espeak-ng.data` next to its own file), else `espeak-worker.ts` through tsx (development and tests).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WorkerRequest, WorkerResponse, WorkerResult } from './espeak-protocol.js';
import {
  DEFAULT_ESPEAK_VARIANTS,
  ESPEAK_ENGINE_NAME,
  type EspeakVoiceEntry,
  espeakVoiceCatalog,
  espeakWordTimings,
  prepareEspeakText,
} from './espeak-text.js';
import {
  type EngineVoice,
  type SpeechEngine,
  SpeechEngineError,
  type SynthesisRequest,
  type SynthesisResult,
  validateSynthesisRequest,
} from './speech-engine.js';
import { visemesFromPhonemes } from './visemes.js';
import { encodeWavPcm16 } from './wav.js';

export const ESPEAK_DEFAULT_WPM = 175;
const ESPEAK_PITCH_BASE = 50;
const ESPEAK_RANGE_BASE = 50;

export interface EspeakEngineOptions {
  /** Variant files offered with every language. @default DEFAULT_ESPEAK_VARIANTS */
  variants?: readonly string[];
  /**
   * A request not answered this long after it was queued fails with `engine_unavailable`, with every
   * other queued request, and the worker is replaced on the next call. @default 60 s
   */
  requestTimeoutMs?: number;
  /** The worker module. @default espeak-worker.mjs/.js beside this module, else espeak-worker.ts via tsx */
  workerUrl?: URL;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type RequestBody = DistributiveOmit<WorkerRequest, 'id'>;

interface Pending {
  resolve: (result: WorkerResult) => void;
  reject: (error: SpeechEngineError) => void;
  timer: NodeJS.Timeout;
}

function startWorker(workerUrl: URL | undefined): Worker {
  if (workerUrl) return new Worker(workerUrl);
  for (const extension of ['.mjs', '.js']) {
    const built = new URL(`./espeak-worker${extension}`, import.meta.url);
    if (existsSync(fileURLToPath(built))) return new Worker(built);
  }
  // Development and tests: run the TypeScript worker through tsx's loader, registered inside the worker.
  const source = new URL('./espeak-worker.ts', import.meta.url);
  // tsx's `register()` installs its hooks for this thread. `require.resolve` finds the API's CommonJS
  // build, which cannot be imported as ESM; its ESM build sits beside it.
  const tsxApiCjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const tsxApiEsm = tsxApiCjs.replace(/\.cjs$/, '.mjs');
  const tsxApi = pathToFileURL(existsSync(tsxApiEsm) ? tsxApiEsm : tsxApiCjs).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`;
  return new Worker(bootstrap, { eval: true });
}

class EspeakEngine implements SpeechEngine {
  readonly name = ESPEAK_ENGINE_NAME;
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private catalog: Promise<Map<string, EspeakVoiceEntry>> | undefined;
  private readonly variants: readonly string[];
  private readonly timeoutMs: number;

  constructor(private readonly options: EspeakEngineOptions = {}) {
    this.variants = options.variants ?? DEFAULT_ESPEAK_VARIANTS;
    this.timeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  async voices(): Promise<EngineVoice[]> {
    return [...(await this.voiceMap()).values()].map((entry) => ({ ...entry.voice }));
  }

  async synthesize(request: SynthesisRequest): Promise<SynthesisResult> {
    const settings = validateSynthesisRequest(request);
    const entry = (await this.voiceMap()).get(request.voiceId);
    if (!entry) {
      throw new SpeechEngineError(
        'voice_not_found',
        `the ${this.name} engine has no voice ${request.voiceId}`,
      );
    }
    const prepared = prepareEspeakText(request.text);
    const result = await this.call({
      type: 'synthesize',
      text: prepared.text,
      voice: entry.espeakVoice,
      rate: Math.round(ESPEAK_DEFAULT_WPM * settings.speed),
      pitch: Math.round(ESPEAK_PITCH_BASE + settings.pitch),
      range: Math.round(ESPEAK_RANGE_BASE * settings.intonation),
      gain: settings.volume,
    });
    if (result.type !== 'synthesize')
      throw new SpeechEngineError('synthesis_failed', 'unexpected worker reply');
    if (result.samples.length === 0) {
      throw new SpeechEngineError('synthesis_failed', 'eSpeak produced no audio for this text');
    }
    const durationMs = Math.round((result.samples.length * 1000) / result.sampleRate);
    return {
      audio: encodeWavPcm16(result.samples, result.sampleRate),
      sampleRate: result.sampleRate,
      durationMs,
      words: espeakWordTimings(result.events, request.text, prepared, durationMs),
      visemes: visemesFromPhonemes(
        result.events
          .filter((event) => event.type === 'phoneme')
          .map((event) => ({ phoneme: String(event.id ?? ''), startMs: event.audio_position })),
        durationMs,
      ),
    };
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new SpeechEngineError('engine_unavailable', 'the speech engine was closed'));
    if (worker) await worker.terminate();
  }

  private voiceMap(): Promise<Map<string, EspeakVoiceEntry>> {
    if (!this.catalog) {
      this.catalog = this.call({ type: 'catalog', variants: this.variants }).then((result) => {
        if (result.type !== 'catalog')
          throw new SpeechEngineError('engine_unavailable', 'unexpected worker reply');
        return new Map(
          espeakVoiceCatalog(result.voices, result.variants).map((entry) => [entry.voice.id, entry]),
        );
      });
      // A failed load is retried by the next call.
      this.catalog.catch(() => {
        this.catalog = undefined;
      });
    }
    return this.catalog;
  }

  private call(body: RequestBody): Promise<WorkerResult> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<WorkerResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        // The worker is stuck in synchronous WASM code: only terminating it stops it.
        this.restart(
          new SpeechEngineError('engine_unavailable', `eSpeak did not answer within ${this.timeoutMs} ms`),
        );
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      worker.ref();
      worker.postMessage({ ...body, id } as WorkerRequest);
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    let worker: Worker;
    try {
      worker = startWorker(this.options.workerUrl);
    } catch (error) {
      throw new SpeechEngineError('engine_unavailable', `cannot start the eSpeak worker: ${String(error)}`, {
        cause: error,
      });
    }
    worker.unref();
    worker.on('message', (response: WorkerResponse) => this.settle(response));
    worker.on('error', (error) =>
      this.restart(
        new SpeechEngineError('engine_unavailable', `the eSpeak worker failed: ${error.message}`, {
          cause: error,
        }),
      ),
    );
    worker.on('exit', (code) => {
      if (this.worker === worker) {
        this.worker = undefined;
        this.failAll(new SpeechEngineError('engine_unavailable', `the eSpeak worker exited (code ${code})`));
      }
    });
    this.worker = worker;
    return worker;
  }

  private settle(response: WorkerResponse): void {
    const pending = this.pending.get(response.id);
    if (!pending) return;
    this.pending.delete(response.id);
    clearTimeout(pending.timer);
    if (this.pending.size === 0) this.worker?.unref();
    if (response.ok) pending.resolve(response.result);
    else {
      pending.reject(
        new SpeechEngineError(
          response.unavailable ? 'engine_unavailable' : 'synthesis_failed',
          response.message,
        ),
      );
    }
  }

  private restart(error: SpeechEngineError): void {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(error);
    void worker?.terminate();
  }

  private failAll(error: SpeechEngineError): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(error);
    }
  }
}

/** A new eSpeak engine; its worker starts on first use. */
export function createEspeakEngine(options?: EspeakEngineOptions): SpeechEngine {
  return new EspeakEngine(options);
}

let shared: SpeechEngine | undefined;

/** The process's eSpeak engine (one worker per process). */
export function espeakEngine(): SpeechEngine {
  shared ??= createEspeakEngine();
  return shared;
}
