/**
 * The worker thread that runs eSpeak NG (`@echogarden/espeak-ng-emscripten`, GPL-3.0). This is the only
 * module that imports the package: the engine (espeak-engine.ts) talks to it by messages only, so the
 * GPL code never loads into the main thread's module graph.
 *
 * Requests are handled one at a time, in arrival order (synthesis is synchronous WASM code).
 */
import { parentPort } from 'node:worker_threads';
import initializeEspeak from '@echogarden/espeak-ng-emscripten';
import type {
  EspeakEvent,
  EspeakVariant,
  WorkerRequest,
  WorkerResponse,
  WorkerResult,
} from './espeak-protocol.js';

const VARIANT_DIR = '/usr/share/espeak-ng-data/voices/!v';

if (!parentPort) throw new Error('espeak-worker must run as a worker thread');
const port = parentPort;

const ready = (async () => {
  const module = await initializeEspeak();
  return { module, espeak: new module.eSpeakNGWorker() };
})();

// A load failure is reported per request (as `unavailable`), not as an unhandled rejection.
ready.catch(() => undefined);

type Espeak = Awaited<typeof ready>;

function readVariant({ module }: Espeak, file: string): EspeakVariant {
  const source = module.FS.readFile(`${VARIANT_DIR}/${file}`, { encoding: 'utf8' });
  const field = (key: string) => source.match(new RegExp(`^\\s*${key}\\s+(\\S.*?)\\s*$`, 'm'))?.[1];
  const gender = field('gender')?.split(/\s+/)[0];
  return {
    file,
    name: field('name') ?? file,
    gender: gender === 'male' || gender === 'female' ? gender : 'unknown',
  };
}

function handle(engine: Espeak, request: WorkerRequest): { result: WorkerResult; transfer: ArrayBuffer[] } {
  const { espeak } = engine;
  if (request.type === 'catalog') {
    const available = new Set(engine.module.FS.readdir(VARIANT_DIR));
    const variants = request.variants
      .filter((file) => available.has(file))
      .map((file) => readVariant(engine, file));
    return { result: { type: 'catalog', voices: espeak.list_voices(), variants }, transfer: [] };
  }

  if (espeak.set_voice(request.voice) !== 0) throw new Error(`eSpeak has no voice ${request.voice}`);
  espeak.set_rate(request.rate);
  espeak.set_pitch(request.pitch);
  espeak.set_range(request.range);
  const chunks: Int16Array[] = [];
  const events: EspeakEvent[] = [];
  espeak.synthesize(request.text, (samples, chunkEvents) => {
    if (samples.length > 0) chunks.push(samples);
    for (const event of chunkEvents) {
      if (event.type === 'word' || event.type === 'phoneme' || event.type === 'end') events.push(event);
    }
    return false; // keep going
  });
  const samples = new Int16Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    samples.set(chunk, offset);
    offset += chunk.length;
  }
  if (request.gain !== 1) {
    for (let i = 0; i < samples.length; i++) {
      samples[i] = Math.max(-32768, Math.min(32767, Math.round((samples[i] ?? 0) * request.gain)));
    }
  }
  return {
    result: { type: 'synthesize', samples, sampleRate: espeak.get_samplerate(), events },
    transfer: [samples.buffer as ArrayBuffer],
  };
}

port.on('message', async (request: WorkerRequest) => {
  let response: WorkerResponse;
  let transfer: ArrayBuffer[] = [];
  let engine: Espeak;
  try {
    engine = await ready;
  } catch (error) {
    const response: WorkerResponse = {
      id: request.id,
      ok: false,
      message: `eSpeak failed to load: ${String(error)}`,
      unavailable: true,
    };
    port.postMessage(response);
    return;
  }
  try {
    const handled = handle(engine, request);
    response = { id: request.id, ok: true, result: handled.result };
    transfer = handled.transfer;
  } catch (error) {
    response = {
      id: request.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      unavailable: false,
    };
  }
  port.postMessage(response, transfer);
});
