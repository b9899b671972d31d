/**
 * Where the service keeps its state: the stack's KMS keys, the single DynamoDB table
 * (`TABLE_SCHEMA`), the media bucket and the bucket receiving the media bucket's access logs.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../../lambdas/core/table-schema.js';
import { PENDING_UPLOADS_PREFIX } from '../../lambdas/media/media-keys.js';

export interface DataStoresProps {
  /** What happens to keys, table and buckets when the stack is deleted. @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE */
  removalPolicy?: RemovalPolicy;
  /** Browser origins allowed to PUT/GET presigned media URLs. @default [] (no bucket CORS) */
  allowedCorsOrigins?: readonly string[];
}

export class DataStores extends Construct {
  /** Symmetric key: table, media, queues, webhook secrets. */
  readonly stackKey: Key;
  /** HMAC_256 key: pagination cursors are MACed with a key derived from it (`GenerateMac`). */
  readonly cursorKey: Key;
  readonly table: Table;
  readonly mediaBucket: Bucket;
  readonly accessLogBucket: Bucket;

  constructor(scope: Construct, id: string, props: DataStoresProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    const destroy = removalPolicy === RemovalPolicy.DESTROY;

    this.stackKey = new Key(this, 'StackKey', {
      description: 'Video Creation Service: table, media, queues and webhook secrets',
      enableKeyRotation: true,
      removalPolicy,
    });
    // HMAC keys cannot rotate automatically (KMS rotates symmetric encryption keys only); a cursor
    // only lives for one listing, so replacing this key is harmless.
    this.cursorKey = new Key(this, 'CursorKey', {
      description: 'Video Creation Service: pagination cursor MACs',
      keySpec: KeySpec.HMAC_256,
      keyUsage: KeyUsage.GENERATE_VERIFY_MAC,
      removalPolicy,
    });

    const { partitionKey, sortKey, gsi1, timeToLiveAttribute } = TABLE_SCHEMA;
    this.table = new Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.stackKey,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute,
      deletionProtection: !destroy,
      removalPolicy,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: gsi1.indexName,
      partitionKey: { name: gsi1.partitionKey, type: AttributeType.STRING },
      sortKey: { name: gsi1.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.ALL,
    });

    // Server access logs cannot be delivered to an SSE-KMS bucket, hence S3-managed keys here.
    this.accessLogBucket = new Bucket(this, 'AccessLogBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
      removalPolicy,
      autoDeleteObjects: destroy,
    });

    const corsOrigins = props.allowedCorsOrigins ?? [];
    this.mediaBucket = new Bucket(this, 'MediaBucket', {
      encryption: BucketEncryption.KMS,
      encryptionKey: this.stackKey,
      bucketKeyEnabled: true,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: 'media/',
      // Versioning protects rendered media against accidental overwrite or delete; replaced
      // versions are kept one week only, so large renders do not pile up.
      versioned: true,
      lifecycleRules: [
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Direct uploads land under this prefix and are copied to their asset when completed;
        // whatever is left after two days (abandoned or already copied) goes.
        { id: 'expire-pending-uploads', prefix: PENDING_UPLOADS_PREFIX, expiration: Duration.days(2) },
        {
          id: 'expire-replaced-versions',
          noncurrentVersionExpiration: Duration.days(7),
          expiredObjectDeleteMarker: true,
        },
      ],
      cors:
        corsOrigins.length > 0
          ? [
              {
                allowedOrigins: [...corsOrigins],
                allowedMethods: [HttpMethods.GET, HttpMethods.PUT, HttpMethods.HEAD],
                allowedHeaders: ['*'],
                exposedHeaders: ['ETag'],
                maxAge: 3600,
              },
            ]
          : undefined,
      removalPolicy,
      autoDeleteObjects: destroy,
    });
  }
}
