/**
 * 100 videos from one template, each with its own variables, end to end through the service: the
 * local stack in memory with the real engines (eSpeak NG speech, ffmpeg composition), short scripts.
 *
 * A template's generate is one video per request (`POST /v3/templates/{template_id}`); the batch
 * route (`POST /v3/videos/batches`) takes `POST /v3/videos` bodies, not template generates. So the
 * bench sends the 100 generate requests at once (concurrently) and polls every video until it is
 * completed; the figure is videos per minute from the first request to the last completion. For
 * comparison, the same 100 videos as `POST /v3/videos` bodies (the template's avatar, voice and
 * script with the values filled in) through one batch.
 *
 *   npm run bench -- template-videos        (BENCH_VIDEOS to change the count, 100 by default)
 */
import { startLocalStack } from '../lib/local/local-stack.js';
import { benchWorkspace } from './support/bench-workspace.js';

const COUNT = Number(process.env.BENCH_VIDEOS ?? '100');
const LOOK = 'maya-office';
const VOICE = 'en-us-olivia';
const SCRIPT = 'Hi Alice, your order ships on Monday.';
const NAMES = ['Bob', 'Chloe', 'Dan', 'Eve', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jun', 'Kai'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];

const stack = await startLocalStack({ port: 0, stepFunctionsTimeScale: 0.001 });
const { apiKey: secret } = await benchWorkspace({
  name: 'Template bench',
  included_credits: 1_000_000,
});

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stack.baseUrl}${url}`, {
    method,
    headers: { 'X-Api-Key': secret, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

let pollErrors = 0;

/** Polls until every video ended (every second); returns the failures and the time the last one ended. */
async function waitAll(ids: readonly string[]): Promise<{ failed: string[]; endedAt: number }> {
  const pending = new Set(ids);
  const failed: string[] = [];
  while (pending.size > 0) {
    // At most 100 ids per statuses request.
    const ask = [...pending].slice(0, 100);
    // One process runs the whole stack and 100 renders: a poll may time out (504); it is asked again.
    const statuses = await call<{
      data: { video_id: string; status: string; error: { message?: string } | null }[];
    }>('GET', `/v3/videos/statuses?video_ids=${ask.join(',')}`).catch((error: unknown) => {
      pollErrors += 1;
      if (pollErrors > 200) throw error;
      return { data: [] };
    });
    for (const entry of statuses.data) {
      if (entry.status === 'completed') pending.delete(entry.video_id);
      else if (entry.status === 'failed') {
        pending.delete(entry.video_id);
        failed.push(`${entry.video_id}: ${entry.error?.message ?? 'failed'}`);
      }
    }
    if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return { failed, endedAt: performance.now() };
}

const valuesOf = (index: number) => ({
  first_name: NAMES[index % NAMES.length] as string,
  day: DAYS[index % DAYS.length] as string,
});

try {
  // The template: a short avatar video, made once, its name and day turned into variables.
  const source = await call<{ data: { video_id: string } }>('POST', '/v3/videos', {
    type: 'avatar',
    avatar_id: LOOK,
    voice_id: VOICE,
    script: SCRIPT,
    resolution: '720p',
  });
  await waitAll([source.data.video_id]);
  const template = await call<{ data: { id: string } }>('POST', '/v3/templates', {
    video_id: source.data.video_id,
    name: 'Order update',
  });
  await call('PUT', `/v3/templates/${template.data.id}/variables`, {
    expected_edit_version: '1',
    variables: [
      { name: 'first_name', type: 'text', match: 'Alice', required: true },
      { name: 'day', type: 'text', match: 'Monday' },
    ],
  });

  const viaTemplate = performance.now();
  const generated = await Promise.all(
    Array.from({ length: COUNT }, (_, index) =>
      call<{ data: { id: string } }>('POST', `/v3/templates/${template.data.id}`, {
        variables: valuesOf(index),
        title: `Order ${index + 1}`,
      }),
    ),
  );
  const acceptedAt = performance.now();
  const templateRun = await waitAll(generated.map((video) => video.data.id));
  const templateMinutes = (templateRun.endedAt - viaTemplate) / 60_000;

  const viaBatch = performance.now();
  const batch = await call<{ data: { items: { video_id: string }[] } }>('POST', '/v3/videos/batches', {
    videos: Array.from({ length: COUNT }, (_, index) => {
      const { first_name, day } = valuesOf(index);
      return {
        type: 'avatar',
        avatar_id: LOOK,
        voice_id: VOICE,
        resolution: '720p',
        title: `Order ${index + 1}`,
        script: SCRIPT.replace('Alice', first_name).replace('Monday', day),
      };
    }),
  });
  const batchRun = await waitAll(batch.data.items.map((item) => item.video_id));
  const batchMinutes = (batchRun.endedAt - viaBatch) / 60_000;

  console.log(`${COUNT} videos of one template (720p avatar, one short scripted scene), real engines`);
  console.log(
    `  POST /v3/templates/{id} x${COUNT} concurrently: accepted in ${((acceptedAt - viaTemplate) / 1000).toFixed(2)} s, all ended in ${(templateMinutes * 60).toFixed(1)} s: ${(COUNT / templateMinutes).toFixed(1)} videos/minute (${templateRun.failed.length} failed)`,
  );
  console.log(
    `  the same videos through POST /v3/videos/batches: ${(batchMinutes * 60).toFixed(1)} s: ${(COUNT / batchMinutes).toFixed(1)} videos/minute (${batchRun.failed.length} failed)`,
  );
  for (const failure of [...templateRun.failed, ...batchRun.failed].slice(0, 5))
    console.log(`  failed: ${failure}`);
} finally {
  await stack.stop();
}
