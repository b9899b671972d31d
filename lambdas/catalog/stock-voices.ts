/**
 * The stock (public) voices: a curated, engine-neutral catalog. Each voice has a stable public id
 * (the `voice_id` clients pass), a human name, a language and a gender, and maps to one voice of
 * each speech engine that can speak it. A deployment uses one engine (`SPEECH_ENGINE`), so a voice is
 * offered where its engine mapping exists: eSpeak NG speaks every voice here; Amazon Polly has no
 * male Hindi or male Mandarin voice, so those two are not offered on Polly deployments.
 *
 * Pure data: no I/O, safe to import from any handler. Preview clips are made by
 * `publish-catalog-media.ts` with the deployment's engine and stored at `previewKey`.
 */
import { config, TEST_DOUBLE_ENGINE } from '../core/config.js';
import { catalogKeys } from './catalog-keys.js';

export interface StockVoice {
  /** Stable public id: `<language in lower case>-<name>`, e.g. `en-us-olivia`. */
  voiceId: string;
  /** A human name, unique in the catalog. */
  name: string;
  /** BCP-47 tag, e.g. `en-US`. */
  language: string;
  /** The language's English name, e.g. `English (United States)`. */
  languageName: string;
  gender: 'male' | 'female';
  /**
   * Engine voice id per speech engine name (`espeak`, `polly`); missing = not available on that engine.
   * eSpeak ids are those of `SpeechEngine.voices()` (`espeak-en-us-f1`); Polly ids are Polly `VoiceId`s.
   */
  engineVoices: Readonly<Record<string, string>>;
  /** S3 key (media bucket) of the preview clip. */
  previewKey: string;
  /** What the preview clip says: an introduction in the voice's language. */
  previewText: string;
}

type VoiceDefinition = Omit<StockVoice, 'previewKey' | 'voiceId'>;

const slug = (value: string) =>
  value
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

const DEFINITIONS: readonly VoiceDefinition[] = [
  {
    name: 'Olivia',
    language: 'en-US',
    languageName: 'English (United States)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-en-us-f1', polly: 'Joanna' },
    previewText: "Hi, I'm Olivia. I'd love to narrate your next video.",
  },
  {
    name: 'Ethan',
    language: 'en-US',
    languageName: 'English (United States)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-en-us-m1', polly: 'Matthew' },
    previewText: "Hi, I'm Ethan. Give me a script and I'll bring it to life.",
  },
  {
    name: 'Charlotte',
    language: 'en-GB',
    languageName: 'English (United Kingdom)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-en-gb-f2', polly: 'Amy' },
    previewText: "Hello, I'm Charlotte. Shall we make something brilliant together?",
  },
  {
    name: 'Oliver',
    language: 'en-GB',
    languageName: 'English (United Kingdom)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-en-gb-m3', polly: 'Brian' },
    previewText: "Hello, I'm Oliver. I can present your story clearly and calmly.",
  },
  {
    name: 'Carmen',
    language: 'es-ES',
    languageName: 'Spanish (Spain)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-es-f1', polly: 'Lucia' },
    previewText: 'Hola, soy Carmen. Me encantaría narrar tu próximo vídeo.',
  },
  {
    name: 'Javier',
    language: 'es-ES',
    languageName: 'Spanish (Spain)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-es-m1', polly: 'Sergio' },
    previewText: 'Hola, soy Javier. Cuéntame tu idea y yo le pongo la voz.',
  },
  {
    name: 'Valentina',
    language: 'es-MX',
    languageName: 'Spanish (Mexico)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-es-419-f2', polly: 'Mia' },
    previewText: 'Hola, soy Valentina. Con gusto narro tu próximo video.',
  },
  {
    name: 'Diego',
    language: 'es-MX',
    languageName: 'Spanish (Mexico)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-es-419-m2', polly: 'Andres' },
    previewText: 'Hola, soy Diego. Hagamos juntos un gran video.',
  },
  {
    name: 'Camille',
    language: 'fr-FR',
    languageName: 'French (France)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-fr-fr-f1', polly: 'Lea' },
    previewText: "Bonjour, je m'appelle Camille. Je peux raconter votre prochaine vidéo.",
  },
  {
    name: 'Julien',
    language: 'fr-FR',
    languageName: 'French (France)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-fr-fr-m1', polly: 'Remi' },
    previewText: "Bonjour, je m'appelle Julien. Confiez-moi votre texte, je m'occupe du reste.",
  },
  {
    name: 'Hannah',
    language: 'de-DE',
    languageName: 'German (Germany)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-de-f2', polly: 'Vicki' },
    previewText: 'Hallo, ich bin Hannah. Ich spreche gern Ihr nächstes Video.',
  },
  {
    name: 'Lukas',
    language: 'de-DE',
    languageName: 'German (Germany)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-de-m1', polly: 'Daniel' },
    previewText: 'Hallo, ich bin Lukas. Geben Sie mir ein Skript, und ich erzähle Ihre Geschichte.',
  },
  {
    name: 'Giulia',
    language: 'it-IT',
    languageName: 'Italian (Italy)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-it-f1', polly: 'Bianca' },
    previewText: 'Ciao, sono Giulia. Posso dare voce al tuo prossimo video.',
  },
  {
    name: 'Marco',
    language: 'it-IT',
    languageName: 'Italian (Italy)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-it-m2', polly: 'Adriano' },
    previewText: 'Ciao, sono Marco. Raccontiamo insieme la tua storia.',
  },
  {
    name: 'Beatriz',
    language: 'pt-BR',
    languageName: 'Portuguese (Brazil)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-pt-br-f1', polly: 'Camila' },
    previewText: 'Olá, eu sou a Beatriz. Posso narrar o seu próximo vídeo.',
  },
  {
    name: 'Rafael',
    language: 'pt-BR',
    languageName: 'Portuguese (Brazil)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-pt-br-m1', polly: 'Thiago' },
    previewText: 'Olá, eu sou o Rafael. Vamos contar a sua história juntos.',
  },
  {
    name: 'Sanne',
    language: 'nl-NL',
    languageName: 'Dutch (Netherlands)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-nl-f1', polly: 'Laura' },
    previewText: 'Hallo, ik ben Sanne. Ik spreek graag je volgende video in.',
  },
  {
    name: 'Daan',
    language: 'nl-NL',
    languageName: 'Dutch (Netherlands)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-nl-m1', polly: 'Ruben' },
    previewText: 'Hallo, ik ben Daan. Geef me een script en ik vertel je verhaal.',
  },
  {
    name: 'Zofia',
    language: 'pl-PL',
    languageName: 'Polish (Poland)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-pl-f1', polly: 'Ola' },
    previewText: 'Dzień dobry, jestem Zofia. Chętnie przeczytam tekst twojego następnego filmu.',
  },
  {
    name: 'Jakub',
    language: 'pl-PL',
    languageName: 'Polish (Poland)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-pl-m1', polly: 'Jacek' },
    previewText: 'Dzień dobry, jestem Jakub. Opowiem twoją historię.',
  },
  {
    name: 'Priya',
    language: 'hi-IN',
    languageName: 'Hindi (India)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-hi-f1', polly: 'Kajal' },
    previewText: 'नमस्ते, मैं प्रिया हूँ। मैं आपके अगले वीडियो को आवाज़ दे सकती हूँ।',
  },
  {
    name: 'Arjun',
    language: 'hi-IN',
    languageName: 'Hindi (India)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-hi-m1' },
    previewText: 'नमस्ते, मैं अर्जुन हूँ। मैं आपकी कहानी सुना सकता हूँ।',
  },
  {
    name: 'Yui',
    language: 'ja-JP',
    languageName: 'Japanese (Japan)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-ja-f1', polly: 'Kazuha' },
    // In kana: eSpeak's Japanese reads kana, not kanji.
    previewText: 'こんにちは、ゆいです。つぎのどうがのナレーションをおまかせください。',
  },
  {
    name: 'Haruto',
    language: 'ja-JP',
    languageName: 'Japanese (Japan)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-ja-m1', polly: 'Takumi' },
    previewText: 'こんにちは、はるとです。あなたのものがたりをおとどけします。',
  },
  {
    name: 'Li Na',
    language: 'zh-CN',
    languageName: 'Chinese (Mandarin, Simplified)',
    gender: 'female',
    engineVoices: { espeak: 'espeak-cmn-f1', polly: 'Zhiyu' },
    previewText: '你好，我是李娜。我可以为你的下一个视频配音。',
  },
  {
    name: 'Wei',
    language: 'zh-CN',
    languageName: 'Chinese (Mandarin, Simplified)',
    gender: 'male',
    engineVoices: { espeak: 'espeak-cmn-m1' },
    previewText: '你好，我是王伟。让我来讲述你的故事。',
  },
];

export const STOCK_VOICES: readonly StockVoice[] = DEFINITIONS.map((definition) => {
  const voiceId = `${definition.language.toLowerCase()}-${slug(definition.name)}`;
  return Object.freeze({ ...definition, voiceId, previewKey: catalogKeys.voicePreview(voiceId) });
});

const BY_ID = new Map(STOCK_VOICES.map((voice) => [voice.voiceId, voice]));

export function findStockVoice(voiceId: string): StockVoice | undefined {
  return BY_ID.get(voiceId);
}

/** The engine voice that speaks `voice` on `engineName`, or undefined when that engine cannot. */
export function engineVoiceOf(voice: StockVoice, engineName: string): string | undefined {
  const catalog = voiceCatalogEngine(engineName);
  return Object.hasOwn(voice.engineVoices, catalog) ? voice.engineVoices[catalog] : undefined;
}

/**
 * The engine whose voice ids and settings `engineName` takes: its own, except the speech test double,
 * which speaks eSpeak's ids (engines/speech/test-double-speech-engine.ts) so that every stock, designed
 * and cloned voice resolves for it exactly as for eSpeak. Voice look-ups by engine go through this.
 */
export function voiceCatalogEngine(engineName: string): string {
  return engineName === TEST_DOUBLE_ENGINE ? 'espeak' : engineName;
}

/** The stock voices a speech engine can speak (by default this deployment's), in catalog order. */
export function availableStockVoices(engineName: string = config().speechEngine): StockVoice[] {
  return STOCK_VOICES.filter((voice) => engineVoiceOf(voice, engineName) !== undefined);
}
