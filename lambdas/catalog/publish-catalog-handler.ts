/**
 * CloudFormation custom resource that publishes the catalog media of a deployment: the `onEvent`
 * handler of an `aws-cdk-lib/custom-resources` Provider. Create and Update run
 * `publishCatalogMedia` (idempotent: only missing or outdated objects are generated and uploaded);
 * Delete does nothing, since the media bucket's own removal policy decides what happens to its objects.
 *
 * Deployment: a container-image function (sharp and the speech engines), with `BUCKET_NAME`,
 * `STACK_KEY_ID`, `SPEECH_ENGINE` and `TABLE_NAME` set, `s3:GetObject`/`s3:PutObject` on
 * `catalog/*` and use of the stack key, 10 minutes of timeout and 3 GB of memory (drawing 30
 * full-HD portraits and 6,287 icons). It stops starting objects a minute before its timeout and
 * answers with what is left, so a slow first publication is reported rather than failing the deploy. The resource's properties (lib/stack/catalog-publisher.ts):
 * - `CatalogVersion: catalogMediaVersion(engine)`, so that CloudFormation sends an Update exactly when
 *   the catalog changed;
 * - `PublicationNonce` (optional): any new value sends an Update, which publishes again;
 * - `FailDeployOnError`: `'true'` fails the deploy when the catalog cannot be published.
 *
 * A failure does not fail the deploy by default. Nothing else in the stack depends on the catalog:
 * failing it on Create rolls back (and can fail to roll back) hundreds of resources that work, for
 * media that can be published again in a minute with `PublicationNonce`.
 * The resource succeeds instead, with `Status` saying what failed (the stack's `CatalogPublication`
 * output, in `cdk deploy`'s output) and the publisher's log holding every failure.
 */
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { logger } from '../core/observability.js';
import { speechEngine } from '../engines/speech/index.js';
import type { SpeechEngine } from '../engines/speech/speech-engine.js';
import { CATALOG_RESOURCE_PROPERTIES } from './catalog-keys.js';
import { catalogMediaVersion } from './catalog-media.js';
import {
  CatalogPublicationError,
  type PublishCatalogMediaOptions,
  publishCatalogMedia,
} from './publish-catalog-media.js';

export const CATALOG_MEDIA_RESOURCE_ID = 'video-service-catalog-media';

export interface CatalogResourceResponse {
  PhysicalResourceId: string;
  Data?: {
    CatalogVersion: string;
    Uploaded: number;
    Generated: number;
    Failed: number;
    /** One line for the deployer: what was published, or what failed and how to publish again. */
    Status: string;
  };
}

export interface CatalogResourceDependencies {
  /** @default the deployment's engine (`SPEECH_ENGINE`) */
  speechEngine?: () => SpeechEngine;
  /** Options of the publication besides the engine (a store, retry timings in tests). */
  publication?: Omit<PublishCatalogMediaOptions, 'speechEngine'>;
}

/**
 * Time kept back from the function's own timeout: objects already started finish (with their retries)
 * and the handler answers before Lambda stops it.
 */
const ANSWER_MARGIN_MS = 60_000;

export function catalogResourceHandler(dependencies: CatalogResourceDependencies = {}) {
  return async (
    event: CloudFormationCustomResourceEvent,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<CatalogResourceResponse> => {
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
    // The deployment's engine: previews sound like the videos made with the voice.
    const engine = (dependencies.speechEngine ?? speechEngine)();
    const CatalogVersion = catalogMediaVersion(engine.name);
    try {
      const result = await publishCatalogMedia({
        // A function's file system is read-only outside /tmp, and a custom resource runs too rarely
        // to profit from a cache.
        cacheDirectory: false,
        // A first deploy publishes 12,671 objects: should it run long, what is left is reported, not lost
        // to a timeout.
        ...(context ? { deadline: Date.now() + context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS } : {}),
        ...dependencies.publication,
        speechEngine: engine,
      });
      return {
        PhysicalResourceId: CATALOG_MEDIA_RESOURCE_ID,
        Data: {
          CatalogVersion,
          Uploaded: result.uploaded,
          Generated: result.generated,
          Failed: 0,
          Status: `published: ${result.total} objects, ${result.uploaded} uploaded now`,
        },
      };
    } catch (error) {
      const reason =
        error instanceof CatalogPublicationError
          ? error.message
          : `Catalog publication (speech engine ${engine.name}) failed: ${error instanceof Error ? error.message : String(error)}`;
      logger.error('Catalog publication failed', {
        reason,
        failures: error instanceof CatalogPublicationError ? error.failures : undefined,
        error,
      });
      // The provider framework makes a thrown error's message the Reason CloudFormation shows.
      if (event.ResourceProperties[CATALOG_RESOURCE_PROPERTIES.failDeployOnError] === 'true')
        throw new Error(reason);
      return {
        PhysicalResourceId: CATALOG_MEDIA_RESOURCE_ID,
        Data: {
          CatalogVersion,
          Uploaded: 0,
          Generated: 0,
          Failed: error instanceof CatalogPublicationError ? error.failures.length : 1,
          Status: `FAILED (publish again: cdk deploy -c catalogPublicationNonce=<new value>): ${reason}`,
        },
      };
    }
  };
}

export const handler = catalogResourceHandler();
