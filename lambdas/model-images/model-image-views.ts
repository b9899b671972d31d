/** Image generations as the API answers them: the reference's fields, images freshly presigned. */
import { presignMediaDownload } from '../media/media-store.js';
import { MODEL_IMAGE_STATUS, type ModelImageRecord } from './model-image-records.js';

export async function modelImageView(record: ModelImageRecord) {
  const completed = record.status === MODEL_IMAGE_STATUS.completed;
  return {
    generation_id: record.generation_id,
    status: record.status,
    model: record.model,
    mode: record.mode,
    num_images: record.num_images,
    aspect_ratio: record.aspect_ratio,
    created_at: record.created_at,
    completed_at: record.completed_at,
    // Every image once the whole generation completed; none before (the reference's rule).
    images: completed
      ? await Promise.all(
          record.images.map(async (image) => ({
            image_id: image.image_id,
            image_url: await presignMediaDownload(image.key),
            width: image.width,
            height: image.height,
            seed: image.seed,
          })),
        )
      : [],
    // Absent unless failed: the reference reads it as one of its codes, never null.
    ...(record.failure_code ? { failure_code: record.failure_code } : {}),
    failure_message: record.failure_message,
  };
}
