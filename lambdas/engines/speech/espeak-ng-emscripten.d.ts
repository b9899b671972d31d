// The part of @echogarden/espeak-ng-emscripten (GPL-3.0, no bundled types) that espeak-worker.ts uses.
// Only the worker thread may import the package; see espeak-engine.ts.
declare module '@echogarden/espeak-ng-emscripten' {
  import type { EspeakEvent, EspeakLanguageVoice } from './espeak-protocol.js';

  interface EspeakFs {
    readdir(path: string): string[];
    readFile(path: string, options: { encoding: 'utf8' }): string;
  }

  interface ESpeakNGWorker {
    list_voices(): EspeakLanguageVoice[];
    /** `espeak_SetVoiceByName`: 0 on success. */
    set_voice(name: string): number;
    set_rate(wordsPerMinute: number): number;
    set_pitch(pitch: number): number;
    /** Pitch range (intonation), 0 to 100; 50 is normal. */
    set_range(range: number): number;
    get_samplerate(): number;
    /** Synthesizes SSML-enabled text; the callback gets each audio chunk and its events (return true to stop). */
    synthesize(text: string, callback: (samples: Int16Array, events: EspeakEvent[]) => unknown): void;
  }

  interface EspeakModule {
    eSpeakNGWorker: new () => ESpeakNGWorker;
    FS: EspeakFs;
  }

  const initialize: (moduleArg?: object) => Promise<EspeakModule>;
  export default initialize;
}
