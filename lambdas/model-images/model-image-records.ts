/**
 * Image generations: one record per `POST /v3/models/images`, each one run of the `model-image` job
 * (model-image-job.ts). A record holds what the request asked for (the identity and reference images,
 * stored in the media bucket; how many images, their ratio, the first seed), the images made, and how
 * it ended.
 *
 * Statuses are the reference's: `pending` (accepted or being made: the reference has no `processing`),
 * `completed` (every image asked for), `failed`, and `cancelled` (named by the contract; nothing cancels
 * a generation yet).
 */
import type { JobBilling } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, nowSeconds } from '../core/ids.js';
import { getItem, type StoredItem, updateExistingItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';

export const MODEL_IMAGE_STATUS = {
  pending: 'pending',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
} as const;
export type ModelImageStatus = (typeof MODEL_IMAGE_STATUS)[keyof typeof MODEL_IMAGE_STATUS];

/** The one mode of the reference: the identity of some pictures in the scene of another. */
export const MODEL_IMAGE_MODES = ['identity_remix'] as const;
/** This service's image model (the hosted API names its own). */
export const MODEL_IMAGE_MODELS = ['service-image-1'] as const;
export type ModelImageModel = (typeof MODEL_IMAGE_MODELS)[number];

export const MODEL_IMAGE_ASPECT_RATIOS = [
  '1:1',
  '2:3',
  '3:2',
  '3:4',
  '4:3',
  '4:5',
  '5:4',
  '9:16',
  '16:9',
] as const;
export type ModelImageAspectRatio = (typeof MODEL_IMAGE_ASPECT_RATIOS)[number];

export const MODEL_IMAGE_LIMITS = {
  maxIdentityImages: 5,
  referenceImages: 1,
  maxImages: 5,
  defaultImages: 1,
  maxSeed: 2_147_483_646,
} as const;

/**
 * The canvas of each ratio: about a megapixel, sides multiples of 16 (what image models take), exact
 * where the ratio allows it.
 */
export const MODEL_IMAGE_CANVAS: Readonly<Record<ModelImageAspectRatio, { width: number; height: number }>> =
  {
    '1:1': { width: 1024, height: 1024 },
    '2:3': { width: 832, height: 1248 },
    '3:2': { width: 1248, height: 832 },
    '3:4': { width: 864, height: 1152 },
    '4:3': { width: 1152, height: 864 },
    '4:5': { width: 896, height: 1120 },
    '5:4': { width: 1120, height: 896 },
    '9:16': { width: 720, height: 1280 },
    '16:9': { width: 1280, height: 720 },
  };

/** The canvas of a picture's own proportions (an omitted ratio): about a megapixel, sides multiples of 16. */
export function canvasOf(width: number, height: number): { width: number; height: number } {
  const ratio = Math.min(4, Math.max(1 / 4, width / height));
  const side = (value: number) => Math.min(2048, Math.max(320, Math.round(value / 16) * 16));
  return { width: side(Math.sqrt(1024 * 1024 * ratio)), height: side(Math.sqrt((1024 * 1024) / ratio)) };
}

export interface ModelImageInput {
  key: string;
  mime_type: string;
  owned: boolean;
}

/** One image made. */
export interface GeneratedImage {
  image_id: string;
  key: string;
  width: number;
  height: number;
  seed: number;
}

export interface ModelImageRecord extends JobBilling {
  generation_id: string;
  workspace_id: string;
  status: ModelImageStatus;
  model: ModelImageModel;
  mode: (typeof MODEL_IMAGE_MODES)[number];
  num_images: number;
  /** The ratio asked for; null: the reference image's. */
  aspect_ratio: ModelImageAspectRatio | null;
  /** The first image's seed; each next image's is one more. */
  seed: number;
  identity_images: ModelImageInput[];
  reference_image: ModelImageInput;
  images: GeneratedImage[];
  engines: Record<string, string>;
  failure_code: string | null;
  failure_message: string | null;
  created_at: number;
  completed_at: number | null;
}

type ModelImageItem = ModelImageRecord & { pk: string; sk: string };
type ModelImageIds = Pick<ModelImageRecord, 'workspace_id' | 'generation_id'>;

export const modelImageKey = (workspaceId: string, id: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.modelImageGeneration, id);

export const modelImageMediaKeys = {
  prefix: (record: ModelImageIds) =>
    `workspaces/${record.workspace_id}/models/images/${record.generation_id}/`,
  image: (record: ModelImageIds, imageId: string) =>
    `workspaces/${record.workspace_id}/models/images/${record.generation_id}/${imageId}.png`,
};

export const modelImageNotFound = (id: string) =>
  new NotFoundError(`Image generation ${id} not found.`, 'not_found', 'generation_id');

export function modelImageItem(record: Omit<ModelImageRecord, keyof JobBilling>): StoredItem {
  return { ...modelImageKey(record.workspace_id, record.generation_id), ...record };
}

function toRecord(item: ModelImageItem): ModelImageRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

export async function getModelImage(
  workspaceId: string,
  id: string,
  consistent = false,
): Promise<ModelImageRecord | undefined> {
  if (!ID_PATTERN.test(id)) return undefined;
  const item = await getItem<ModelImageItem>(modelImageKey(workspaceId, id), consistent);
  return item ? toRecord(item) : undefined;
}

export async function requireModelImage(workspaceId: string, id: string): Promise<ModelImageRecord> {
  const record = await getModelImage(workspaceId, id);
  if (!record) throw modelImageNotFound(id);
  return record;
}

/** Sets fields of a generation still `pending`; the record after, else undefined. */
export async function updateRunningModelImage(
  record: ModelImageIds,
  fields: Partial<ModelImageRecord>,
): Promise<ModelImageRecord | undefined> {
  const item = await updateExistingItem<ModelImageItem>(
    modelImageKey(record.workspace_id, record.generation_id),
    fields,
    [],
    { status: MODEL_IMAGE_STATUS.pending },
  );
  return item ? toRecord(item) : undefined;
}

export function failModelImage(
  record: ModelImageRecord,
  failure: { code: string; message: string },
): Promise<ModelImageRecord | undefined> {
  return updateRunningModelImage(record, {
    status: MODEL_IMAGE_STATUS.failed,
    failure_code: failure.code,
    failure_message: failure.message,
    completed_at: nowSeconds(),
  });
}

/** Every stored input of the request. */
export const inputsOf = (record: ModelImageRecord): ModelImageInput[] => [
  ...record.identity_images,
  record.reference_image,
];
