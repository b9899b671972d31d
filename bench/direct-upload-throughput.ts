/**
 * Upload throughput of a 20 MB file through a direct upload (create → presigned PUT → complete,
 * which hashes, sniffs and moves the object) against a plain S3 PutObject of the same bytes to the
 * same local S3, in one run. Prints MB/s of each and their ratio.
 *
 *   npm run bench -- direct-upload-throughput     (BENCH_UPLOAD_MB, BENCH_ROUNDS to tune)
 */
import { createHash, randomBytes } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const { startLocalStack } = await import('../lib/local/local-stack.js');
const { s3Client } = await import('../lambdas/core/aws-clients.js');
const { config } = await import('../lambdas/core/config.js');

const megabytes = Number(process.env.BENCH_UPLOAD_MB ?? '20');
const rounds = Number(process.env.BENCH_ROUNDS ?? '3');
// A WAV header in front of random samples: a real, accepted media type of the wanted size.
const header = Buffer.alloc(44);
header.write('RIFF', 0, 'ascii');
header.writeUInt32LE(36 + megabytes * 1024 * 1024, 4);
header.write('WAVEfmt ', 8, 'ascii');
header.writeUInt32LE(16, 16);
header.writeUInt16LE(1, 20);
header.writeUInt16LE(1, 22);
header.writeUInt32LE(44_100, 24);
header.writeUInt32LE(88_200, 28);
header.writeUInt16LE(2, 32);
header.writeUInt16LE(16, 34);
header.write('data', 36, 'ascii');
header.writeUInt32LE(megabytes * 1024 * 1024, 40);
const bytes = Buffer.concat([header, randomBytes(megabytes * 1024 * 1024)]);
const checksum = createHash('sha256').update(bytes).digest('hex');

const stack = await startLocalStack({ port: 0 });
const headers = { 'X-Api-Key': stack.apiKey, 'Content-Type': 'application/json' };

async function directUpload(): Promise<number> {
  const started = performance.now();
  const created = await fetch(`${stack.baseUrl}/v3/assets/direct-uploads`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      filename: 'bench.wav',
      content_type: 'audio/wav',
      size_bytes: bytes.length,
      checksum_sha256: checksum,
    }),
  });
  const upload = (
    (await created.json()) as {
      data: { asset_id: string; upload_url: string; upload_headers: Record<string, string> };
    }
  ).data;
  const put = await fetch(upload.upload_url, { method: 'PUT', body: bytes, headers: upload.upload_headers });
  if (put.status !== 200) throw new Error(`PUT answered ${put.status}`);
  const completed = await fetch(`${stack.baseUrl}/v3/assets/${upload.asset_id}/complete`, {
    method: 'POST',
    headers,
    body: '{}',
  });
  if (completed.status !== 200)
    throw new Error(`complete answered ${completed.status}: ${await completed.text()}`);
  return performance.now() - started;
}

async function plainPut(index: number): Promise<number> {
  const started = performance.now();
  await s3Client().send(
    new PutObjectCommand({ Bucket: config().bucketName, Key: `bench/plain-${index}`, Body: bytes }),
  );
  return performance.now() - started;
}

const direct: number[] = [];
const plain: number[] = [];
await directUpload(); // warm-up
await plainPut(-1);
for (let round = 0; round < rounds; round++) {
  direct.push(await directUpload());
  plain.push(await plainPut(round));
}
await stack.stop();

const mbPerSecond = (ms: number) => (bytes.length / 1024 / 1024 / (ms / 1000)).toFixed(1);
const best = (samples: number[]) => Math.min(...samples);
console.log(`${megabytes} MiB file, best of ${rounds} rounds after a warm-up`);
console.log(
  `  direct upload (create + presigned PUT + verified complete): ${mbPerSecond(best(direct))} MB/s (${best(direct).toFixed(0)} ms)`,
);
console.log(
  `  plain S3 PutObject of the same bytes:                     ${mbPerSecond(best(plain))} MB/s (${best(plain).toFixed(0)} ms)`,
);
console.log(`  ratio: ${(best(plain) / best(direct)).toFixed(2)}`);
