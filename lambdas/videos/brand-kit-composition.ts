/**
 * The Compose side of a video's brand kit (what a kit does: brand-kit-render.ts): the caption style
 * and the logo mark the composition engine takes, made from the kit copied into the render spec.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { bundledFontFile, isBundledFontFamily } from '../engines/composition/bundled-fonts.js';
import type { CaptionStyle, Watermark } from '../engines/composition/composition-engine.js';
import { probeMedia } from '../engines/composition/probe.js';
import { downloadMediaObject } from '../media/media-store.js';
import type { RenderBrandKit } from './render-spec.js';

/** The largest share of the frame's width and height a kit's logo takes. */
export const LOGO_BOX = { width: 0.25, height: 0.12 } as const;

/** Relative luminance of `#rrggbb` (WCAG 2). */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const WHITE = '#ffffff';
const NEAR_BLACK = '#111111';

/** The caption colours of a kit: text on a box of its accent colour (the second, else the primary). */
export function captionColors(colors: readonly string[]): Pick<CaptionStyle, 'textColor' | 'boxColor'> {
  const box = colors[1] ?? colors[0];
  if (!box) return {};
  return {
    boxColor: box,
    textColor: contrastRatio(WHITE, box) >= contrastRatio(NEAR_BLACK, box) ? WHITE : NEAR_BLACK,
  };
}

/**
 * What the composition engine needs for a video's kit: the caption style (font file and colours) and
 * the logo mark, with the kit's files downloaded into `workDir`.
 */
export async function brandKitComposition(
  kit: RenderBrandKit | null | undefined,
  frame: { workDir: string; width: number; height: number; watermarkPosition?: Watermark['position'] },
): Promise<{ captionStyle?: CaptionStyle; logo?: Watermark }> {
  if (!kit) return {};
  const dir = join(frame.workDir, 'brand-kit');
  await mkdir(dir, { recursive: true });
  const family = kit.caption_font?.family;
  let font: CaptionStyle['font'];
  if (kit.caption_font?.key && family)
    font = { path: await downloadMediaObject(kit.caption_font.key, join(dir, 'caption-font')), family };
  else if (family && isBundledFontFamily(family)) font = { path: bundledFontFile(family), family };
  const captionStyle: CaptionStyle = { ...(font ? { font } : {}), ...captionColors(kit.colors) };
  let logo: Watermark | undefined;
  if (kit.logo_key) {
    const path = await downloadMediaObject(kit.logo_key, join(dir, 'logo'));
    const picture = (await probeMedia(path)).streams.find((stream) => stream.width && stream.height);
    if (picture?.width && picture.height) {
      const scale = Math.min(
        (LOGO_BOX.width * frame.width) / picture.width,
        (LOGO_BOX.height * frame.height) / picture.height,
      );
      logo = {
        imagePath: path,
        opacity: 1,
        scale: Math.min(10, Math.max(0.01, scale)),
        position: frame.watermarkPosition === 'top_right' ? 'top_left' : 'top_right',
        offsetX: 0,
        offsetY: 0,
      };
    }
  }
  return { ...(Object.keys(captionStyle).length > 0 ? { captionStyle } : {}), ...(logo ? { logo } : {}) };
}
