import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_PREFIX } from '../../../lambdas/catalog/catalog-keys.js';
import {
  catalogMediaItems,
  catalogMediaVersion,
  lookSpriteSheet,
} from '../../../lambdas/catalog/catalog-media.js';
import { catalogIcons, iconKeys } from '../../../lambdas/catalog/icon-catalog.js';
import { CATALOG_SOUNDS } from '../../../lambdas/catalog/sound-catalog.js';
import { SPRITES } from '../../../lambdas/catalog/sprite-art.js';
import {
  findStockAvatarGroup,
  findStockLook,
  PORTRAIT_SIZES,
  STOCK_AVATAR_GROUPS,
  STOCK_LOOKS,
} from '../../../lambdas/catalog/stock-avatars.js';
import {
  availableStockVoices,
  engineVoiceOf,
  findStockVoice,
  STOCK_VOICES,
} from '../../../lambdas/catalog/stock-voices.js';
import { createEspeakEngine } from '../../../lambdas/engines/speech/espeak-engine.js';
import type { EngineVoice, SpeechEngine } from '../../../lambdas/engines/speech/speech-engine.js';
import { AGENT_STYLES } from '../../../lambdas/video-agents/agent-styles.js';

/** Amazon Polly voices the catalog maps to: VoiceId → language and gender, from Polly's voice list. */
const POLLY_VOICES: Record<string, { language: string; gender: 'male' | 'female' }> = {
  Joanna: { language: 'en-US', gender: 'female' },
  Matthew: { language: 'en-US', gender: 'male' },
  Amy: { language: 'en-GB', gender: 'female' },
  Brian: { language: 'en-GB', gender: 'male' },
  Lucia: { language: 'es-ES', gender: 'female' },
  Sergio: { language: 'es-ES', gender: 'male' },
  Mia: { language: 'es-MX', gender: 'female' },
  Andres: { language: 'es-MX', gender: 'male' },
  Lea: { language: 'fr-FR', gender: 'female' },
  Remi: { language: 'fr-FR', gender: 'male' },
  Vicki: { language: 'de-DE', gender: 'female' },
  Daniel: { language: 'de-DE', gender: 'male' },
  Bianca: { language: 'it-IT', gender: 'female' },
  Adriano: { language: 'it-IT', gender: 'male' },
  Camila: { language: 'pt-BR', gender: 'female' },
  Thiago: { language: 'pt-BR', gender: 'male' },
  Laura: { language: 'nl-NL', gender: 'female' },
  Ruben: { language: 'nl-NL', gender: 'male' },
  Ola: { language: 'pl-PL', gender: 'female' },
  Jacek: { language: 'pl-PL', gender: 'male' },
  Kajal: { language: 'hi-IN', gender: 'female' },
  Kazuha: { language: 'ja-JP', gender: 'female' },
  Takumi: { language: 'ja-JP', gender: 'male' },
  Zhiyu: { language: 'zh-CN', gender: 'female' },
};

/** eSpeak names Mandarin `cmn`; the catalog uses the BCP-47 macrolanguage `zh`. */
const primaryLanguage = (tag: string) => {
  const primary = tag.split('-')[0]?.toLowerCase() ?? '';
  return primary === 'cmn' ? 'zh' : primary;
};

const WORKSPACE_ID = /^[0-9a-f]{32}$/;

describe('stock avatars', () => {
  it('has five or six characters of two or three looks each', () => {
    expect(STOCK_AVATAR_GROUPS.length).toBeGreaterThanOrEqual(5);
    expect(STOCK_AVATAR_GROUPS.length).toBeLessThanOrEqual(6);
    for (const group of STOCK_AVATAR_GROUPS) {
      expect(group.looks.length, group.id).toBeGreaterThanOrEqual(2);
      expect(group.looks.length, group.id).toBeLessThanOrEqual(3);
      expect(group.looks.map((look) => look.id)).toContain(group.coverLookId);
    }
    expect(new Set(STOCK_AVATAR_GROUPS.map((group) => group.gender))).toEqual(new Set(['female', 'male']));
  });

  it('has unique ids, which can never be mistaken for a workspace avatar id', () => {
    const ids = [...STOCK_AVATAR_GROUPS.map((group) => group.id), ...STOCK_LOOKS.map((look) => look.id)];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).not.toMatch(WORKSPACE_ID);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9-]+$/);
  });

  it('finds groups and looks by id, and nothing else', () => {
    for (const look of STOCK_LOOKS) {
      expect(findStockLook(look.id)).toBe(look);
      expect(findStockAvatarGroup(look.groupId)?.looks).toContain(look);
    }
    expect(findStockLook('maya')).toBeUndefined();
    expect(findStockLook('toString')).toBeUndefined();
    expect(findStockAvatarGroup('__proto__')).toBeUndefined();
  });

  it('gives every look a default voice of its gender that every engine speaks', () => {
    for (const look of STOCK_LOOKS) {
      const voice = findStockVoice(look.defaultVoiceId);
      expect(voice, look.id).toBeDefined();
      expect(voice?.gender, look.id).toBe(look.gender);
      for (const engine of ['espeak', 'polly']) {
        expect(voice && engineVoiceOf(voice, engine), `${look.id} on ${engine}`).toBeDefined();
      }
    }
    for (const group of STOCK_AVATAR_GROUPS) {
      expect(group.defaultVoiceId).toBe(group.looks[0]?.defaultVoiceId);
    }
  });

  it('describes each look with the size of its orientation, engines, tags and catalog keys', () => {
    for (const look of STOCK_LOOKS) {
      expect({ width: look.imageWidth, height: look.imageHeight }).toEqual(
        PORTRAIT_SIZES[look.preferredOrientation],
      );
      expect(look.supportedApiEngines).toContain('avatar_iv');
      expect(look.tags.length).toBeGreaterThan(0);
      expect(look.portraitKey).toBe(`${CATALOG_PREFIX}avatars/${look.id}.png`);
      expect(look.previewKey.startsWith(CATALOG_PREFIX)).toBe(true);
      expect(look.gender).toBe(findStockAvatarGroup(look.groupId)?.gender);
    }
    expect(new Set(STOCK_LOOKS.map((look) => look.preferredOrientation))).toEqual(
      new Set(['landscape', 'portrait', 'square']),
    );
  });

  it('draws every look of a character differently', () => {
    for (const group of STOCK_AVATAR_GROUPS) {
      const appearances = group.looks.map((look) => JSON.stringify(look.appearance));
      expect(new Set(appearances).size, group.id).toBe(appearances.length);
    }
  });
});

describe('stock voices', () => {
  let espeak: SpeechEngine;
  let espeakVoices: Map<string, EngineVoice>;

  beforeAll(async () => {
    espeak = createEspeakEngine();
    espeakVoices = new Map((await espeak.voices()).map((voice) => [voice.id, voice]));
  });
  afterAll(() => espeak.close());

  it('has 20 to 30 voices with unique ids and names', () => {
    expect(STOCK_VOICES.length).toBeGreaterThanOrEqual(20);
    expect(STOCK_VOICES.length).toBeLessThanOrEqual(30);
    const ids = STOCK_VOICES.map((voice) => voice.voiceId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(STOCK_VOICES.map((voice) => voice.name)).size).toBe(ids.length);
    for (const voice of STOCK_VOICES) {
      expect(voice.voiceId).toMatch(/^[a-z]{2}-[a-z]{2}-[a-z0-9-]+$/);
      expect(voice.voiceId).not.toMatch(WORKSPACE_ID);
      expect(findStockVoice(voice.voiceId)).toBe(voice);
      expect(voice.previewKey).toBe(`${CATALOG_PREFIX}voices/${voice.voiceId}.wav`);
      expect(voice.previewText.trim().length).toBeGreaterThan(10);
    }
    expect(findStockVoice('hasOwnProperty')).toBeUndefined();
  });

  it('offers a male and a female voice in every language', () => {
    const languages = new Set(STOCK_VOICES.map((voice) => voice.language));
    expect(languages.size).toBeGreaterThanOrEqual(10);
    for (const language of languages) {
      const genders = STOCK_VOICES.filter((voice) => voice.language === language).map(
        (voice) => voice.gender,
      );
      expect(new Set(genders), language).toEqual(new Set(['female', 'male']));
    }
  });

  it('maps every voice to an eSpeak voice the engine really has, of the same language and gender', () => {
    for (const voice of STOCK_VOICES) {
      const id = engineVoiceOf(voice, 'espeak');
      const engineVoice = id ? espeakVoices.get(id) : undefined;
      expect(engineVoice, `${voice.voiceId} → ${id}`).toBeDefined();
      expect(engineVoice?.gender, voice.voiceId).toBe(voice.gender);
      expect(primaryLanguage(engineVoice?.language ?? ''), voice.voiceId).toBe(
        primaryLanguage(voice.language),
      );
    }
  });

  it('maps voices to Polly voices of the same language and gender, where Polly has one', () => {
    const withoutPolly: string[] = [];
    for (const voice of STOCK_VOICES) {
      const id = engineVoiceOf(voice, 'polly');
      if (!id) {
        withoutPolly.push(voice.voiceId);
        continue;
      }
      expect(POLLY_VOICES[id], `${voice.voiceId} → ${id}`).toEqual({
        language: voice.language,
        gender: voice.gender,
      });
    }
    // Polly has no male Hindi and no male Mandarin voice.
    expect(withoutPolly.sort()).toEqual(['hi-in-arjun', 'zh-cn-wei']);
    expect(availableStockVoices('polly').length).toBe(STOCK_VOICES.length - 2);
    expect(availableStockVoices('espeak').length).toBe(STOCK_VOICES.length);
    expect(availableStockVoices('festival')).toEqual([]);
  });

  it('speaks the non-Latin previews as words, not as spelled-out characters', async () => {
    for (const voiceId of ['ja-jp-yui', 'hi-in-priya', 'zh-cn-li-na']) {
      const voice = findStockVoice(voiceId);
      const engineVoiceId = voice && engineVoiceOf(voice, 'espeak');
      if (!voice || !engineVoiceId) throw new Error(`no voice ${voiceId}`);
      const result = await espeak.synthesize({ text: voice.previewText, voiceId: engineVoiceId });
      expect(result.durationMs, voiceId).toBeGreaterThan(1500);
      expect(result.durationMs, voiceId).toBeLessThan(7000);
      expect(result.words.length, voiceId).toBeGreaterThan(1);
    }
  });
});

describe('catalog media', () => {
  it('lists a portrait, a preview and the talking sprites per look, a preview per voice the engine speaks, the sounds, a thumbnail and a preview video per style and the icons', () => {
    const espeak = catalogMediaItems('espeak');
    const perLook = 3;
    const perStyle = 2;
    const local =
      STOCK_LOOKS.length * perLook +
      STOCK_VOICES.length +
      CATALOG_SOUNDS.length +
      AGENT_STYLES.length * perStyle;
    expect(catalogMediaItems('espeak', { icons: false }).length).toBe(local);
    // Each icon's SVG and PNG, at the keys the search presigns.
    const icons = catalogIcons();
    expect(icons.length).toBeGreaterThan(6_000);
    expect(espeak.length).toBe(local + icons.length * 2);
    const rocket = icons.find((icon) => icon.id === 'tabler-rocket');
    if (!rocket) throw new Error('no tabler-rocket');
    expect(
      espeak.filter((item) => 'icon' in item && item.icon === rocket).map((item) => [item.kind, item.key]),
    ).toEqual([
      ['icon-svg', iconKeys(rocket).svg],
      ['icon-png', iconKeys(rocket).png],
    ]);
    expect(catalogMediaItems('polly').length).toBe(
      STOCK_LOOKS.length * perLook +
        STOCK_VOICES.length -
        2 +
        CATALOG_SOUNDS.length +
        AGENT_STYLES.length * perStyle +
        icons.length * 2,
    );
    // Every look can open and close its mouth in each viseme, and blink: one sheet holds them.
    for (const look of STOCK_LOOKS) {
      expect(espeak.filter((item) => item.kind === 'sprite-sheet' && item.look.id === look.id)).toHaveLength(
        1,
      );
      const sheet = lookSpriteSheet(look);
      expect(sheet.sprites.map((entry) => entry.sprite)).toEqual([...SPRITES]);
      // Stacked without overlap, inside the sheet.
      for (const [index, entry] of sheet.sprites.entries()) {
        const next = sheet.sprites[index + 1];
        expect(entry.sheetTop + entry.box.height).toBe(next ? next.sheetTop : sheet.height);
        expect(entry.box.width).toBeLessThanOrEqual(sheet.width);
      }
    }
    const keys = espeak.map((item) => item.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key.startsWith(CATALOG_PREFIX)).toBe(true);
    const versions = espeak.map((item) => item.version);
    expect(new Set(versions).size).toBe(versions.length);
  });

  it('versions are stable, and voice previews change with the engine while portraits do not', () => {
    const first = catalogMediaItems('espeak');
    expect(catalogMediaItems('espeak').map((item) => item.version)).toEqual(
      first.map((item) => item.version),
    );
    const polly = new Map(catalogMediaItems('polly').map((item) => [item.key, item.version]));
    for (const item of first) {
      if (item.kind === 'voice-preview') expect(polly.get(item.key)).not.toBe(item.version);
      else expect(polly.get(item.key)).toBe(item.version);
    }
    expect(catalogMediaVersion('espeak')).toBe(catalogMediaVersion('espeak'));
    expect(catalogMediaVersion('espeak')).not.toBe(catalogMediaVersion('polly'));
  });
});
