/**
 * The local stack enforces each function's IAM grants (lib/local/access-enforcement.ts): a build that
 * lacks one grant fails what needs it the way AWS would, with AccessDenied, and nothing else. Every
 * other integration test runs under the same enforcement with every grant, and its stack refuses to
 * stop cleanly if any call was refused (test/support/test-stack.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRANTS } from '../../lambdas/core/grants.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack({
    revokedGrants: {
      // Webhook endpoint secrets are encrypted with the stack key before the endpoint is stored.
      'area:webhooks': [GRANTS.webhookSecrets],
      // Direct-upload batches queue one message per item on the batch queue.
      'area:assets': [GRANTS.sendBatchItems],
    },
  });
});
afterAll(() => api.stop());

describe('a function without a grant it needs', () => {
  it('is refused by KMS as AWS refuses it, and the request stores nothing', async () => {
    const created = await api.call('POST', '/v3/webhooks/endpoints', {
      body: { url: 'https://hooks.example.com/video', events: ['avatar_video.success'] },
    });

    expect(created.status).toBe(500);
    expect(errorOf(created).code).toBe('internal_error');
    const denial = api.stack.accessDenials().find((refused) => refused.function === 'area:webhooks');
    expect(denial).toMatchObject({
      action: 'kms:Encrypt',
      resource: api.stack.environment.STACK_KEY_ID,
    });
    expect(denial?.message).toMatch(
      /^User: arn:aws:sts::000000000000:assumed-role\/local-area-webhooks\/.+ is not authorized to perform: kms:Encrypt on resource: arn:aws:kms:/,
    );
    const listed = await api.call<{ data: unknown[] }>('GET', '/v3/webhooks/endpoints');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
  });

  it('is refused by SQS when it queues batch items', async () => {
    const batch = await api.call<{ data: { batch_id: string } }>(
      'POST',
      '/v3/assets/direct-uploads/batches',
      {
        body: { files: [{ filename: 'a.png', content_type: 'image/png', size_bytes: 1024 }] },
      },
    );
    expect(batch.status).toBe(201);

    const completed = await api.call('POST', '/v3/assets/complete/batches', {
      body: { batch_id: batch.body.data.batch_id },
    });

    expect(completed.status).toBe(500);
    expect(errorOf(completed).code).toBe('internal_error');
    const refused = api.stack.accessDenials().filter((denial) => denial.function === 'area:assets');
    expect(refused.map((denial) => [denial.action, denial.resource.split(':').at(-1)])).toEqual([
      ['sqs:SendMessage', 'video-service-batch'],
    ]);
    // Nothing was lost: the batch still waits with its item queued, for a complete that can be sent.
    const view = await api.call('GET', `/v3/assets/batches/${batch.body.data.batch_id}`);
    expect(view.body).toMatchObject({
      data: { status: 'processing', counts_by_status: { queued: 1, completed: 0, failed: 0 } },
    });
  });

  it('takes nothing from functions whose grants were not revoked', async () => {
    const folder = await api.call<{ data: { id: string; name: string } }>('POST', '/v3/folders', {
      body: { name: 'Still allowed' },
    });

    expect(folder.status).toBe(201);
    expect(folder.body.data.name).toBe('Still allowed');
    const functions = new Set(api.stack.accessDenials().map((denial) => denial.function));
    expect([...functions].sort()).toEqual(['area:assets', 'area:webhooks']);
  });
});
