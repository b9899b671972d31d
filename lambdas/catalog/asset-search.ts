/**
 * `GET /v3/assets/search`: images or icons (`type`, required) ranked against a natural-language
 * `query` by the catalogs' shared ranker (catalog/text-ranking.ts, the sound search's BM25F with a
 * 0–1 `score`), from one of two places (`scope`):
 *
 * - `public` (default), the service's own catalog:
 *   - icons: every icon of Tabler Icons (`@tabler/icons`, MIT; ~5,200 outline and ~1,000 filled),
 *     by the package's name, tags and category (catalog/icon-catalog.ts); served through the media
 *     store as a 512×512 transparent PNG (`url`) and as the package's SVG (`svg_url`).
 *   - images: the images the service ships, which are its stock presenters (the drawn avatar looks):
 *     each look's transparent portrait and its preview in front of a backdrop, by look name, tags and
 *     what they show. No stock-photo library ships with the service, so a search for a pizza finds
 *     nothing here: say so rather than return the nearest presenter.
 * - `personal`: the workspace's own ready image assets (PNG, JPEG, WebP), by file name, format and
 *   the text the service can read from the file (media/image-facts.ts: PNG text chunks, EXIF
 *   description, JPEG comment, XMP title, description and keywords). `icon` keeps those with an alpha
 *   channel (cut-outs, logos, icons): a workspace's uploads carry no "this is an icon" flag.
 *
 * Only results matching at least one word of the query are listed; a query with no searchable word
 * (`icon`, `the`) lists every candidate, score 1. Pages are offsets into the ranking, behind the
 * signed cursor of every list (catalog/catalog-pages.ts), bound to the workspace and the search.
 */
import pLimit from 'p-limit';
import { z } from 'zod';
import { ASSET_STATUS, type AssetItem } from '../assets/assets.js';
import { queryAll, updateExistingItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { limitParam, tokenParam } from '../core/validation.js';
import { IMAGE_FACTS_HEAD_BYTES, type ImageFacts, imageFacts } from '../media/image-facts.js';
import { presignMediaDownload, readMediaHead } from '../media/media-store.js';
import { ACCEPTED_MEDIA_TYPES, MEDIA_KINDS } from '../media/media-types.js';
import { arraySource, type Page, pageAcrossSources } from './catalog-pages.js';
import { type CatalogIcon, catalogIcons, ICON_PNG_SIZE } from './icon-catalog.js';
import { iconMedia } from './icon-media.js';
import { PREVIEW_SCALE, STOCK_LOOKS, type StockLook } from './stock-avatars.js';
import {
  COMMON_FILLER_WORDS,
  indexDocuments,
  type Ranked,
  rankDocuments,
  type TextIndex,
  type WeightedText,
} from './text-ranking.js';

export const ASSET_SEARCH_TYPES = { image: 'image', icon: 'icon' } as const;
export type AssetSearchType = (typeof ASSET_SEARCH_TYPES)[keyof typeof ASSET_SEARCH_TYPES];
export const ASSET_SEARCH_SCOPES = { public: 'public', personal: 'personal' } as const;
export type AssetSearchScope = (typeof ASSET_SEARCH_SCOPES)[keyof typeof ASSET_SEARCH_SCOPES];

export const MAX_QUERY_LENGTH = 200;

export const assetSearchQuery = z.strictObject({
  query: z
    .string({ error: 'is required: what you are looking for, in words' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(MAX_QUERY_LENGTH, { error: `must be at most ${MAX_QUERY_LENGTH} characters` })
    .meta({ description: "What you are looking for, in words: 'minimalist rocket icon', 'pizza'" }),
  type: z
    .enum(Object.values(ASSET_SEARCH_TYPES) as [AssetSearchType, ...AssetSearchType[]], {
      error: "must be 'image' or 'icon'",
    })
    .meta({ description: '`image` or `icon`' }),
  scope: z
    .enum(Object.values(ASSET_SEARCH_SCOPES) as [AssetSearchScope, ...AssetSearchScope[]], {
      error: "must be 'public' or 'personal'",
    })
    .default(ASSET_SEARCH_SCOPES.public)
    .meta({
      description: "`public` (default): the service's catalog; `personal`: your workspace's own assets",
    }),
  limit: limitParam(50, 20),
  token: tokenParam,
});

/** Filler words of this search: they name what is searched, not what it shows. */
const FILLER_WORDS: ReadonlySet<string> = new Set([
  ...COMMON_FILLER_WORDS,
  'icon',
  'icons',
  'image',
  'images',
  'picture',
  'pictures',
  'photo',
  'photos',
  'symbol',
  'glyph',
  'pictogram',
  'clipart',
  'vector',
  'graphic',
]);

/** Anything scoring above 0 matched a word of the query. */
const MIN_RESULT_SCORE = 0.001;

export interface AssetSearchResult {
  id: string;
  type: AssetSearchType;
  /** Presigned URL of the image, or of the icon's PNG; expires like every media URL. */
  url: string;
  width: number | null;
  height: number | null;
  is_transparent: boolean | null;
  orientation: 'landscape' | 'portrait' | 'square' | null;
  /** What the result is called: the icon's or look's name, the asset's file name. */
  name: string;
  /** Relevance to `query`, 0 to 1, higher is closer (catalog/text-ranking.ts). */
  score: number;
  /** Catalog results: the catalog's tags; empty for a workspace's assets. */
  tags: readonly string[];
  /** Public icons: presigned URL of the icon's SVG; null otherwise. */
  svg_url: string | null;
}

function orientationOf(width: number | null, height: number | null): AssetSearchResult['orientation'] {
  if (!width || !height) return null;
  if (width === height) return 'square';
  return width > height ? 'landscape' : 'portrait';
}

// ---- public icons ----

let iconIndex: TextIndex<CatalogIcon> | undefined;
function iconsIndexed(): TextIndex<CatalogIcon> {
  iconIndex ??= indexDocuments(
    catalogIcons(),
    (icon) => [
      { text: icon.name, weight: 2 },
      ...icon.tags.map((tag) => ({ text: tag, weight: 2 })),
      { text: icon.category, weight: 1 },
      { text: icon.style, weight: 1 },
    ],
    FILLER_WORDS,
  );
  return iconIndex;
}

async function iconResult({ item: icon, score }: Ranked<CatalogIcon>): Promise<AssetSearchResult> {
  const media = await iconMedia(icon);
  return {
    id: icon.id,
    type: ASSET_SEARCH_TYPES.icon,
    url: media.pngUrl,
    width: ICON_PNG_SIZE,
    height: ICON_PNG_SIZE,
    // Tabler icons are strokes or shapes on nothing: the PNG's background is transparent.
    is_transparent: true,
    orientation: 'square',
    name: icon.name,
    score,
    tags: icon.tags,
    svg_url: media.svgUrl,
  };
}

// ---- public images: the stock presenters ----

interface StockImage {
  id: string;
  look: StockLook;
  kind: 'portrait' | 'preview';
  key: string;
  width: number;
  height: number;
}

const STOCK_IMAGES: readonly StockImage[] = STOCK_LOOKS.flatMap((look) => [
  {
    id: `${look.id}-portrait`,
    look,
    kind: 'portrait' as const,
    key: look.portraitKey,
    width: look.imageWidth,
    height: look.imageHeight,
  },
  {
    id: `${look.id}-preview`,
    look,
    kind: 'preview' as const,
    key: look.previewKey,
    width: Math.round(look.imageWidth * PREVIEW_SCALE),
    height: Math.round(look.imageHeight * PREVIEW_SCALE),
  },
]);

/** What each kind of stock image shows, in words. */
const STOCK_IMAGE_WORDS = {
  portrait: 'presenter avatar person portrait cut-out transparent background',
  preview: 'presenter avatar person portrait backdrop background',
} as const;

let stockImageIndex: TextIndex<StockImage> | undefined;
function stockImagesIndexed(): TextIndex<StockImage> {
  stockImageIndex ??= indexDocuments(
    STOCK_IMAGES,
    (image) => [
      { text: image.look.name, weight: 2 },
      ...image.look.tags.map((tag) => ({ text: tag, weight: 2 })),
      { text: `${image.look.gender === 'female' ? 'woman' : 'man'} ${image.look.gender}`, weight: 1 },
      { text: STOCK_IMAGE_WORDS[image.kind], weight: 1 },
    ],
    FILLER_WORDS,
  );
  return stockImageIndex;
}

async function stockImageResult({ item: image, score }: Ranked<StockImage>): Promise<AssetSearchResult> {
  return {
    id: image.id,
    type: ASSET_SEARCH_TYPES.image,
    url: await presignMediaDownload(image.key, { contentType: 'image/png', fileName: `${image.id}.png` }),
    width: image.width,
    height: image.height,
    is_transparent: image.kind === 'portrait',
    orientation: orientationOf(image.width, image.height),
    name: `${image.look.name} (${image.kind})`,
    score,
    tags: image.look.tags,
    svg_url: null,
  };
}

// ---- personal: the workspace's image assets ----

/** Files whose first bytes are read at once, for assets no search has met yet. */
const FACTS_READ_CONCURRENCY = 16;

/** Bump when image-facts.ts reads more: assets whose cached facts are older are read again. */
const SEARCH_FACTS_VERSION = 1;

interface SearchFacts extends ImageFacts {
  version: number;
}

/** An asset item as the search reads it: with the facts cached by an earlier search, if any. */
type SearchableAssetItem = AssetItem & { search_facts?: SearchFacts };

interface SearchableAsset {
  item: SearchableAssetItem;
  facts: SearchFacts;
}

/**
 * The asset's facts: cached on its item, else read from the first bytes of its file and cached (a
 * ready asset's file never changes). A file that is not an image the reader knows gets empty facts.
 */
async function factsOf(item: SearchableAssetItem): Promise<SearchFacts> {
  if (item.search_facts?.version === SEARCH_FACTS_VERSION) return item.search_facts;
  const head = await readMediaHead(item.object_key, IMAGE_FACTS_HEAD_BYTES);
  const facts: SearchFacts = {
    version: SEARCH_FACTS_VERSION,
    ...(imageFacts(head) ?? { width: null, height: null, hasAlpha: false, text: [] }),
  };
  // Only if the asset is still there: a deleted asset is not brought back by a search.
  await updateExistingItem({ pk: item.pk, sk: item.sk }, { search_facts: facts });
  return facts;
}

/** `Team_photo-2024.final.png` → `Team photo 2024 final`: the words of a file name. */
const fileNameWords = (name: string) =>
  name
    .replace(/\.[^.]+$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_.]+/g, ' ');

function assetFields({ item, facts }: SearchableAsset): WeightedText[] {
  const format = ACCEPTED_MEDIA_TYPES[item.mime_type];
  return [
    { text: fileNameWords(item.name), weight: 2 },
    { text: `${format.extension} ${item.mime_type.split('/')[1] ?? ''}`, weight: 1 },
    ...facts.text.map((text) => ({ text, weight: 1 })),
  ];
}

async function workspaceImages(workspaceId: string, type: AssetSearchType): Promise<SearchableAsset[]> {
  const items = await queryAll<SearchableAssetItem>(
    keys.workspacePartition(workspaceId),
    `${RESOURCE_TYPES.asset}#`,
  );
  const images = items.filter(
    (item) => item.status === ASSET_STATUS.ready && item.kind === MEDIA_KINDS.image,
  );
  // Facts are read once per asset; a workspace that uploaded many since its last search reads a few at a time.
  const reading = pLimit(FACTS_READ_CONCURRENCY);
  const withFacts = await Promise.all(
    images.map((item) => reading(async () => ({ item, facts: await factsOf(item) }))),
  );
  return type === ASSET_SEARCH_TYPES.icon ? withFacts.filter((asset) => asset.facts.hasAlpha) : withFacts;
}

function assetResult(type: AssetSearchType) {
  return async ({ item: { item, facts }, score }: Ranked<SearchableAsset>): Promise<AssetSearchResult> => ({
    id: item.asset_id,
    type,
    url: await presignMediaDownload(item.object_key, { fileName: item.name, contentType: item.mime_type }),
    width: facts.width,
    height: facts.height,
    is_transparent: facts.hasAlpha,
    orientation: orientationOf(facts.width, facts.height),
    name: item.name,
    score,
    tags: [],
    svg_url: null,
  });
}

// ---- the search ----

export interface AssetSearchOptions {
  query: string;
  type: AssetSearchType;
  scope: AssetSearchScope;
  limit: number;
  token?: string | undefined;
}

export async function searchAssets(
  workspaceId: string,
  options: AssetSearchOptions,
): Promise<Page<AssetSearchResult>> {
  const { query, type, scope } = options;
  const binding = `${workspaceId}:AssetSearch:${JSON.stringify([scope, type, query])}`;
  const source =
    scope === ASSET_SEARCH_SCOPES.personal
      ? arraySource(
          rankDocuments(
            indexDocuments(await workspaceImages(workspaceId, type), assetFields, FILLER_WORDS),
            query,
            MIN_RESULT_SCORE,
          ),
          assetResult(type),
        )
      : type === ASSET_SEARCH_TYPES.icon
        ? arraySource(rankDocuments(iconsIndexed(), query, MIN_RESULT_SCORE), iconResult)
        : arraySource(rankDocuments(stockImagesIndexed(), query, MIN_RESULT_SCORE), stockImageResult);
  return pageAcrossSources(binding, [source], options.limit, options.token);
}
