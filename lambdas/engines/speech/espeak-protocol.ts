/**
 * Messages between the eSpeak engine (main thread) and its worker thread. Types only: both sides
 * import this file, and it must never import the GPL eSpeak package.
 */

/** One event of eSpeak's synthesis callback, as the WASM package reports it. */
export interface EspeakEvent {
  type: 'word' | 'sentence' | 'mark' | 'play' | 'end' | 'msg_terminated' | 'phoneme' | 'samplerate';
  /** 1-based position in the input text, in Unicode code points. */
  text_position: number;
  /** Length in code points (word events). */
  word_length: number;
  /** Milliseconds from the start of the audio. */
  audio_position: number;
  /** Phoneme (IPA; empty for a pause), mark name, or word/sentence number. */
  id?: string | number;
}

/** A language voice of eSpeak (`list_voices()`). */
export interface EspeakLanguageVoice {
  name: string;
  identifier: string;
  languages: { priority: number; name: string }[];
}

/** A voice variant file (`voices/!v/<file>`): timbre, pitch and gender applied on top of a language. */
export interface EspeakVariant {
  file: string;
  name: string;
  gender: 'male' | 'female' | 'unknown';
}

export type WorkerRequest =
  | { id: number; type: 'catalog'; variants: readonly string[] }
  | {
      id: number;
      type: 'synthesize';
      /** SSML-safe text (markup characters escaped). */
      text: string;
      /** `<language voice identifier>+<variant file>` for `set_voice`. */
      voice: string;
      /** Words per minute. */
      rate: number;
      /** eSpeak pitch, 0 to 100. */
      pitch: number;
      /** eSpeak pitch range (intonation), 0 to 100; 50 is normal. */
      range: number;
      /** Linear gain applied to the samples. */
      gain: number;
    };

export type WorkerResult =
  | { type: 'catalog'; voices: EspeakLanguageVoice[]; variants: EspeakVariant[] }
  | { type: 'synthesize'; samples: Int16Array; sampleRate: number; events: EspeakEvent[] };

export type WorkerResponse =
  | { id: number; ok: true; result: WorkerResult }
  | { id: number; ok: false; message: string /** eSpeak itself failed to load. */; unavailable: boolean };
