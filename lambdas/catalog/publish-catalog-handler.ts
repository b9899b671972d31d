/**
 * CloudFormation custom resource that publishes the catalog media of a deployment: the `onEvent`
 * handler of an `aws-cdk-lib/custom-resources` Provider. Create and Update run
 * `publishCatalogMedia` (idempotent: only missing or outdated objects are generated and uploaded);
 * Delete does nothing, since the media bucket's own removal policy decides what happens to its objects.
 *
 * Deployment: a container-image function (sharp and the speech engines), with `BUCKET_NAME`,
 * `STACK_KEY_ID`, `SPEECH_ENGINE` and `TABLE_NAME` set, `s3:GetObject`/`s3:PutObject` on
 * `catalog/*` and use of the stack key, a few minutes of timeout and 2 GB of memory (drawing 30
 * full-HD portraits). Give the resource the property `CatalogVersion: catalogMediaVersion(engine)`
 * so that CloudFormation sends an Update exactly when the catalog changed.
 */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { speechEngine } from '../engines/speech/index.js';
import { catalogMediaVersion } from './catalog-media.js';
import { publishCatalogMedia } from './publish-catalog-media.js';

export const CATALOG_MEDIA_RESOURCE_ID = 'video-service-catalog-media';

export interface CatalogResourceResponse {
  PhysicalResourceId: string;
  Data?: { CatalogVersion: string; Uploaded: number; Generated: number };
}

export async function handler(event: CloudFormationCustomResourceEvent): Promise<CatalogResourceResponse> {
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  // The deployment's engine (`SPEECH_ENGINE`): previews sound like the videos made with the voice.
  const engine = speechEngine();
  // A function's file system is read-only outside /tmp, and a custom resource runs too rarely to
  // profit from a cache.
  const result = await publishCatalogMedia({ speechEngine: engine, cacheDirectory: false });
  return {
    PhysicalResourceId: CATALOG_MEDIA_RESOURCE_ID,
    Data: {
      CatalogVersion: catalogMediaVersion(engine.name),
      Uploaded: result.uploaded,
      Generated: result.generated,
    },
  };
}
