/**
 * Brand kits: a workspace's colours, caption fonts and logos, which videos are made with
 * (`brand_kit_id`; videos/brand-kit-render.ts says what a kit does to a video). A kit's files are
 * copies under its own media prefix, so deleting the asset a logo or font came from leaves the kit
 * whole; a video copies what it needs from the kit when it is created.
 *
 * One kit of a workspace may be its default: the kit videos get when they name none. Which one it is
 * lives in one pointer item of the workspace, so making a kit the default unsets the previous one in
 * the same write, and a deleted default simply leaves none. With the workspace's brand lock on
 * (`brand_lock`, an administrator's setting), videos may use the default kit only.
 *
 * A kit of another workspace is never found (its key is in the workspace's partition).
 */
import type { Workspace } from '../accounts/workspaces.js';
import { type MediaInput, resolveMediaInput } from '../assets/media-inputs.js';
import { ConflictError, ForbiddenError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import { ID_PATTERN, newId, nowSeconds } from '../core/ids.js';
import {
  deleteExistingItem,
  getItem,
  putItem,
  putNewItem,
  queryWorkspaceResources,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { BUNDLED_FONT_FAMILIES, isBundledFontFamily } from '../engines/composition/bundled-fonts.js';
import { FontFileError, readFontFile } from '../media/font-files.js';
import { mediaKeys } from '../media/media-keys.js';
import {
  copyMediaObject,
  deleteMediaObject,
  deleteMediaPrefix,
  presignMediaDownload,
  putMediaObject,
  readMediaObject,
} from '../media/media-store.js';

const MiB = 1024 * 1024;

export const BRAND_KIT_LIMITS = {
  colors: 10,
  fonts: 3,
  logos: 5,
  /** Largest logo image. */
  logoBytes: 10 * MiB,
  /** Largest font file (CJK fonts run to 15-20 MiB). */
  fontBytes: 20 * MiB,
} as const;

/** A caption font of a kit: a family every deployment bundles, or a font file the workspace gave. */
export interface BrandKitFont {
  family: string;
  source: 'bundled' | 'uploaded';
  /** The file under the kit's prefix; null for a bundled family. */
  key: string | null;
  format: 'ttf' | 'otf' | null;
}

export interface BrandKitLogo {
  key: string;
  mime_type: string;
}

export interface BrandKitRecord {
  brand_kit_id: string;
  workspace_id: string;
  name: string;
  /** `#rrggbb`, lower case; the first is the primary colour, the second the accent. */
  colors: string[];
  fonts: BrandKitFont[];
  /** The first is the primary logo. */
  logos: BrandKitLogo[];
  /** Counts updates: an update is written only over the revision it read. */
  revision: number;
  created_at: number;
  updated_at: number;
}

type BrandKitItem = BrandKitRecord & { pk: string; sk: string };

/** A font of a request: a bundled family by name, or a font file as a media input. */
export type FontInput = { family: string } | MediaInput;

export interface NewBrandKit {
  name: string;
  colors?: string[] | undefined;
  fonts?: FontInput[] | undefined;
  logos?: MediaInput[] | undefined;
  is_default?: boolean | undefined;
}

/** On update: a given list replaces, an empty list clears, an omitted one stays. */
export type BrandKitChanges = Partial<NewBrandKit>;

const kitKey = (workspaceId: string, kitId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.brandKit, kitId);

/** The workspace's default kit: one item naming it (its sort key does not start with `BRAND_KIT#`). */
const defaultPointerKey = (workspaceId: string) => ({
  pk: keys.workspacePartition(workspaceId),
  sk: `${RESOURCE_TYPES.brandKit}_DEFAULT`,
});

export const brandKitNotFound = (kitId: string) =>
  new NotFoundError(`Brand kit ${kitId} not found.`, 'resource_not_found', 'brand_kit_id');

function toRecord(item: BrandKitItem): BrandKitRecord {
  const { pk: _pk, sk: _sk, ...kit } = item;
  return kit;
}

export async function getBrandKit(workspaceId: string, kitId: string): Promise<BrandKitRecord | undefined> {
  if (!ID_PATTERN.test(kitId)) return undefined;
  const item = await getItem<BrandKitItem>(kitKey(workspaceId, kitId), true);
  return item ? toRecord(item) : undefined;
}

/** The id of the workspace's default kit, if it names one (the kit itself may have been deleted since). */
export async function defaultBrandKitId(workspaceId: string): Promise<string | undefined> {
  const pointer = await getItem<{ pk: string; sk: string; brand_kit_id: string }>(
    defaultPointerKey(workspaceId),
    true,
  );
  return pointer?.brand_kit_id;
}

async function makeDefault(workspaceId: string, kitId: string): Promise<void> {
  await putItem({ ...defaultPointerKey(workspaceId), brand_kit_id: kitId, updated_at: nowSeconds() });
}

/** Unsets the default, only while it is still `kitId` (another kit made default meanwhile stays). */
async function unsetDefault(workspaceId: string, kitId: string): Promise<void> {
  // Read, then delete: a kit made default in between loses it again (a rare race between two
  // updates of the default; the answers' `is_default` show what was kept).
  const pointer = await defaultBrandKitId(workspaceId);
  if (pointer === kitId) await deleteExistingItem(defaultPointerKey(workspaceId));
}

/** `#ABCDEF` → `#abcdef`; the schema has checked the shape. */
export function normaliseColors(colors: readonly string[]): string[] {
  return colors.map((color) => color.toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// Files

/** The field a media input's problem is named by: `fonts[1].asset_id`, `logos[0].url`, `...data`. */
function inputField(param: string, input: MediaInput): string {
  return `${param}.${input.type === 'base64' ? 'data' : input.type}`;
}

/** A kit's copy of a resolved input; the intermediate object of a URL or inline input is removed. */
async function dropIntermediate(resolved: { source: string; objectKey: string }): Promise<void> {
  if (resolved.source !== 'asset') await deleteMediaObject(resolved.objectKey);
}

/** Checks a font of a request, without storing anything (bundled families only: files need reading). */
function checkBundled(input: FontInput, param: string): void {
  if ('family' in input && !isBundledFontFamily(input.family)) {
    throw new InvalidParameterError(
      `\`${param}.family\`: ${JSON.stringify(input.family)} is not a bundled font family; use one of ${BUNDLED_FONT_FAMILIES.join(', ')}, or give a font file ({"asset_id": "..."} of a .ttf or .otf upload).`,
      `${param}.family`,
    );
  }
}

async function storeFont(
  workspaceId: string,
  kitId: string,
  input: FontInput,
  param: string,
): Promise<BrandKitFont> {
  if ('family' in input) return { family: input.family, source: 'bundled', key: null, format: null };
  const resolved = await resolveMediaInput(workspaceId, input, {
    param,
    accept: ['font'],
    maxBytes: BRAND_KIT_LIMITS.fontBytes,
  });
  const bytes = await readMediaObject(resolved.objectKey);
  let font: ReturnType<typeof readFontFile>;
  try {
    font = readFontFile(bytes);
  } catch (error) {
    await dropIntermediate(resolved);
    if (!(error instanceof FontFileError)) throw error;
    const field = inputField(param, input);
    throw new InvalidParameterError(`\`${field}\` ${error.message}.`, field, { cause: error });
  }
  const key = `${mediaKeys.brandKit(workspaceId, kitId)}font-${newId()}.${font.format}`;
  await putMediaObject(workspaceId, key, bytes, font.mimeType);
  await dropIntermediate(resolved);
  return { family: font.family, source: 'uploaded', key, format: font.format };
}

async function storeLogo(
  workspaceId: string,
  kitId: string,
  input: MediaInput,
  param: string,
): Promise<BrandKitLogo> {
  const resolved = await resolveMediaInput(workspaceId, input, {
    param,
    accept: ['image'],
    maxBytes: BRAND_KIT_LIMITS.logoBytes,
  });
  const key = `${mediaKeys.brandKit(workspaceId, kitId)}logo-${newId()}`;
  await copyMediaObject(workspaceId, resolved.objectKey, key, resolved.mimeType);
  await dropIntermediate(resolved);
  return { key, mime_type: resolved.mimeType };
}

/** Stores the fonts and logos of a request under the kit's prefix; bundled families are checked first. */
async function storeFiles(
  workspaceId: string,
  kitId: string,
  input: Pick<NewBrandKit, 'fonts' | 'logos'>,
): Promise<{ fonts?: BrandKitFont[]; logos?: BrandKitLogo[] }> {
  input.fonts?.forEach((font, index) => {
    checkBundled(font, `fonts[${index}]`);
  });
  const stored: string[] = [];
  try {
    let fonts: BrandKitFont[] | undefined;
    if (input.fonts) {
      fonts = [];
      for (const [index, font] of input.fonts.entries()) {
        const made = await storeFont(workspaceId, kitId, font, `fonts[${index}]`);
        if (made.key) stored.push(made.key);
        fonts.push(made);
      }
    }
    let logos: BrandKitLogo[] | undefined;
    if (input.logos) {
      logos = [];
      for (const [index, logo] of input.logos.entries()) {
        const made = await storeLogo(workspaceId, kitId, logo, `logos[${index}]`);
        stored.push(made.key);
        logos.push(made);
      }
    }
    return { ...(fonts ? { fonts } : {}), ...(logos ? { logos } : {}) };
  } catch (error) {
    // A refused request keeps none of its files.
    await Promise.all(stored.map((key) => deleteMediaObject(key)));
    throw error;
  }
}

const fileKeys = (kit: Pick<BrandKitRecord, 'fonts' | 'logos'>) =>
  new Set([
    ...kit.fonts.flatMap((font) => (font.key ? [font.key] : [])),
    ...kit.logos.map((logo) => logo.key),
  ]);

// ---------------------------------------------------------------------------------------------
// Create, read, list, update, delete

export async function createBrandKit(workspaceId: string, input: NewBrandKit): Promise<BrandKitRecord> {
  const kitId = newId();
  const files = await storeFiles(workspaceId, kitId, input);
  const now = nowSeconds();
  const kit: BrandKitRecord = {
    brand_kit_id: kitId,
    workspace_id: workspaceId,
    name: input.name,
    colors: normaliseColors(input.colors ?? []),
    fonts: files.fonts ?? [],
    logos: files.logos ?? [],
    revision: 1,
    created_at: now,
    updated_at: now,
  };
  if (!(await putNewItem({ ...kitKey(workspaceId, kitId), ...kit })))
    throw new Error(`Brand kit id collision: ${kitId}`);
  if (input.is_default) await makeDefault(workspaceId, kitId);
  return kit;
}

export async function requireBrandKit(workspaceId: string, kitId: string): Promise<BrandKitRecord> {
  const kit = await getBrandKit(workspaceId, kitId);
  if (!kit) throw brandKitNotFound(kitId);
  return kit;
}

export async function listBrandKits(workspaceId: string, limit: number, token?: string) {
  const page = await queryWorkspaceResources<BrandKitItem>(
    workspaceId,
    RESOURCE_TYPES.brandKit,
    'BrandKitsList',
    limit,
    token,
  );
  return { items: page.items.map(toRecord), nextToken: page.nextToken };
}

/**
 * Applies `changes` to a kit: lists replace (an empty one clears), omitted fields stay. Files of the
 * kit no longer used are deleted after the record no longer names them.
 * @throws 404 for an unknown kit, 409 `conflict` when another update of it came first
 */
export async function updateBrandKit(
  workspaceId: string,
  kitId: string,
  changes: BrandKitChanges,
): Promise<BrandKitRecord> {
  const kit = await requireBrandKit(workspaceId, kitId);
  const files = await storeFiles(workspaceId, kitId, changes);
  const set: Partial<BrandKitRecord> = {
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.colors !== undefined ? { colors: normaliseColors(changes.colors) } : {}),
    ...files,
    revision: kit.revision + 1,
    updated_at: nowSeconds(),
  };
  const updated = await updateExistingItem<BrandKitItem>(kitKey(workspaceId, kitId), set, [], {
    revision: kit.revision,
  });
  if (!updated) {
    await Promise.all([...fileKeys({ fonts: [], logos: [], ...files })].map((key) => deleteMediaObject(key)));
    if (!(await getBrandKit(workspaceId, kitId))) throw brandKitNotFound(kitId);
    throw new ConflictError(
      `Brand kit ${kitId} was changed by another request at the same time; read it and try again.`,
      'conflict',
    );
  }
  const after = toRecord(updated);
  const kept = fileKeys(after);
  await Promise.all([...fileKeys(kit)].filter((key) => !kept.has(key)).map((key) => deleteMediaObject(key)));
  if (changes.is_default === true) await makeDefault(workspaceId, kitId);
  else if (changes.is_default === false) await unsetDefault(workspaceId, kitId);
  return after;
}

/** Deletes a kit and its files. Videos made with it keep their copies. @returns false for an unknown kit */
export async function deleteBrandKit(workspaceId: string, kitId: string): Promise<boolean> {
  if (!ID_PATTERN.test(kitId)) return false;
  if (!(await deleteExistingItem(kitKey(workspaceId, kitId)))) return false;
  await unsetDefault(workspaceId, kitId);
  await deleteMediaPrefix(mediaKeys.brandKit(workspaceId, kitId));
  return true;
}

// ---------------------------------------------------------------------------------------------
// Views

/** A kit as every brand-kit route answers it; `defaultId` is the workspace's default kit. */
export async function brandKitView(kit: BrandKitRecord, defaultId: string | undefined) {
  const url = (key: string, mimeType: string) => presignMediaDownload(key, { contentType: mimeType });
  const logos = await Promise.all(
    kit.logos.map(async (logo) => ({ url: await url(logo.key, logo.mime_type), mime_type: logo.mime_type })),
  );
  return {
    brand_kit_id: kit.brand_kit_id,
    name: kit.name,
    colors: kit.colors,
    logo_url: logos[0]?.url ?? null,
    logos,
    fonts: await Promise.all(
      kit.fonts.map(async (font) => ({
        family: font.family,
        source: font.source,
        format: font.format,
        url: font.key ? await url(font.key, font.format === 'otf' ? 'font/otf' : 'font/ttf') : null,
      })),
    ),
    is_default: kit.brand_kit_id === defaultId,
    created_at: kit.created_at,
    updated_at: kit.updated_at,
  };
}

// ---------------------------------------------------------------------------------------------
// Videos

/**
 * The kit a video is made with: the one it names, else the workspace's default (if any). With the
 * workspace's brand lock on, naming any kit but the default is 403 `brand_kit_locked`; a kit the
 * workspace does not have is 400 naming `param`.
 */
export async function brandKitForVideo(
  workspace: Pick<Workspace, 'workspace_id' | 'brand_lock'>,
  requestedId: string | undefined,
  param = 'brand_kit_id',
): Promise<BrandKitRecord | undefined> {
  const defaultId = await defaultBrandKitId(workspace.workspace_id);
  if (requestedId === undefined)
    return defaultId ? await getBrandKit(workspace.workspace_id, defaultId) : undefined;
  if (workspace.brand_lock === true && requestedId !== defaultId) {
    throw new ForbiddenError(
      defaultId
        ? `The workspace's brand policy is locked: only its default brand kit (${defaultId}) may be used; pass that id or omit brand_kit_id.`
        : "The workspace's brand policy is locked and it has no default brand kit: omit brand_kit_id.",
      'brand_kit_locked',
      { param },
    );
  }
  const kit = await getBrandKit(workspace.workspace_id, requestedId);
  if (!kit)
    throw new InvalidParameterError(
      `\`${param}\`: no brand kit ${requestedId} exists in this workspace.`,
      param,
    );
  return kit;
}
