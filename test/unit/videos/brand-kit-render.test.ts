import { describe, expect, it } from 'vitest';
import { captionColors, contrastRatio } from '../../../lambdas/videos/brand-kit-composition.js';
import { brandKitKeys, movedBrandKit, withBrandKit } from '../../../lambdas/videos/brand-kit-render.js';
import type { RenderBrandKit, RenderScene, RenderSpec } from '../../../lambdas/videos/render-spec.js';

const scene = (id: string, background: RenderScene['background']): RenderScene => ({
  id,
  source: 'avatar_video',
  background,
  presenter: null,
  speech: null,
  duration_ms: 1000,
});

const spec: RenderSpec = {
  scenes: [
    scene('scene_1', { type: 'color', color: '#e9edf2', implicit: true }),
    scene('scene_2', { type: 'color', color: '#123456' }),
    scene('scene_3', { type: 'image', key: 'workspaces/w/inputs/picture', fit: 'cover' }),
    scene('scene_4', { type: 'color', color: '#e9edf2', implicit: true, transparent: true }),
  ],
  burn_captions: true,
  captions_requested: true,
  watermark: null,
  cinematic: null,
  brand_glossary_id: null,
};

const kit: RenderBrandKit = {
  brand_kit_id: 'kit',
  colors: ['#1f4fbf', '#f0c000'],
  caption_font: { family: 'Acme Sans', key: 'workspaces/w/inputs/font' },
  logo_key: 'workspaces/w/inputs/logo',
};

describe('a kit on a render spec', () => {
  it('recolours only the backgrounds the request did not choose', () => {
    const branded = withBrandKit(spec, kit);
    expect(branded.scenes.map((entry) => entry.background)).toEqual([
      { type: 'color', color: '#1f4fbf', implicit: true },
      { type: 'color', color: '#123456' },
      { type: 'image', key: 'workspaces/w/inputs/picture', fit: 'cover' },
      { type: 'color', color: '#1f4fbf', implicit: true, transparent: true },
    ]);
    expect(branded.brand_kit).toBe(kit);
  });

  it('leaves backgrounds alone for a kit without colours', () => {
    expect(withBrandKit(spec, { ...kit, colors: [] }).scenes).toEqual(spec.scenes);
  });

  it('names its files, and moves them', async () => {
    expect(brandKitKeys({ brand_kit: kit })).toEqual([
      'workspaces/w/inputs/font',
      'workspaces/w/inputs/logo',
    ]);
    expect(brandKitKeys({})).toEqual([]);
    const moved = await movedBrandKit(
      kit,
      async (key, name) => `templates/t/${name}:${key.split('/').at(-1)}`,
    );
    expect(moved).toEqual({
      ...kit,
      caption_font: { family: 'Acme Sans', key: 'templates/t/brand-font:font' },
      logo_key: 'templates/t/brand-logo:logo',
    });
    expect(await movedBrandKit(undefined, async (key) => key)).toBeNull();
  });
});

describe('caption colours', () => {
  it('boxes captions in the accent colour (else the primary) with the text that contrasts more', () => {
    expect(captionColors(['#1f4fbf', '#f0c000'])).toEqual({ boxColor: '#f0c000', textColor: '#111111' });
    expect(captionColors(['#1f4fbf'])).toEqual({ boxColor: '#1f4fbf', textColor: '#ffffff' });
    expect(captionColors([])).toEqual({});
  });

  it('measures contrast as WCAG does', () => {
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#777777')).toBe(1);
    expect(contrastRatio('#000000', '#ffffff')).toBe(contrastRatio('#ffffff', '#000000'));
  });
});
