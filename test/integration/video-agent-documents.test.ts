/**
 * The video agent reads PDF documents (over HTTP, engines' test doubles, the local planner): a PDF's
 * words become the script as a text file's do, the page and character limits (set low here) are kept
 * and said, and a PDF with no readable text fails the session with `document_unreadable`, charging
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventBusEvent } from '../../lib/local/emulators/index.js';
import { eventCapture } from '../support/event-capture.js';
import { corruptPdf, type PdfPage, textPdf } from '../support/pdf-documents.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const capture = eventCapture();
const MAX_PAGES = 3;
const MAX_CHARACTERS = 1500;

interface Session {
  session_id: string;
  status: string;
  video_id?: string;
  messages: { role: string; type: string; content: string }[];
  failure_code: string | null;
  failure_message: string | null;
}

let api: TestStack;

beforeAll(async () => {
  api = await startTestStack({
    stepFunctionsTimeScale: 0.001,
    ...capture.stackOptions,
    environment: { DOCUMENT_MAX_PAGES: String(MAX_PAGES), DOCUMENT_MAX_CHARACTERS: String(MAX_CHARACTERS) },
  });
  await capture.subscribe(api, { 'detail-type': ['video_agent.success', 'video_agent.fail'] });
});

afterAll(async () => {
  await api?.stop();
});

async function waitFor(sessionId: string, statuses: string[], key?: string): Promise<Session> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const result = await api.call<{ data: Session }>(
      'GET',
      `/v3/video-agents/${sessionId}`,
      key ? { key } : {},
    );
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (statuses.includes(result.body.data.status)) return result.body.data;
    if (Date.now() > deadline) throw new Error(`session still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function createWith(pdf: Buffer, body: Record<string, unknown>, key?: string) {
  const created = await api.call<{ data: { session_id: string } }>('POST', '/v3/video-agents', {
    body: {
      files: [{ type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') }],
      ...body,
    },
    ...(key ? { key } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data.session_id;
}

const TIDAL: PdfPage[] = [
  [
    'Tidal Power Report',
    '',
    'Tidal power turns the rise and fall of the sea into electricity.',
    'Tidal turbines sit on the seabed where tidal currents run fast.',
  ],
  [
    'A tidal lagoon holds water behind a wall and releases it through turbines.',
    'Unlike wind, the tides can be predicted years ahead.',
  ],
];

describe('PDF documents', () => {
  it("plans the video from a PDF's words, as from a text file", async () => {
    const sessionId = await createWith(textPdf(TIDAL), { prompt: 'a 30-second summary of this report' });
    const done = await waitFor(sessionId, ['completed', 'failed']);
    expect(done.failure_message).toBeNull();
    expect(done.status).toBe('completed');
    const plan = done.messages.find((message) => message.content.startsWith('Here is my plan'));
    const sceneLines = plan?.content.split('\n').slice(1) ?? [];
    expect(sceneLines.filter((line) => /tidal/i.test(line)).length).toBeGreaterThanOrEqual(2);
    expect(plan?.content).toMatch(/lagoon|seabed|predicted/);
    // Nothing was cut, so nothing is said about it.
    expect(done.messages.some((message) => /is long: I/.test(message.content))).toBe(false);
    const scenes = await api.call<{ data: { scenes: { script: { text: string }[] }[] } }>(
      'GET',
      `/v3/videos/${done.video_id}/scenes`,
    );
    const narration = scenes.body.data.scenes
      .flatMap((scene) => scene.script.map((line) => line.text))
      .join(' ');
    expect(narration).toMatch(/tidal/i);
  });

  it('reads only the first pages and characters the limits allow, and says so in the conversation', async () => {
    const pages: PdfPage[] = Array.from({ length: 6 }, (_, index) => [
      `Chapter ${index + 1} on tidal streams.`,
      ...Array.from(
        { length: 6 },
        (_, line) =>
          `Tidal stream fact ${index + 1}.${line + 1}: the ${['flood', 'ebb', 'slack', 'spring', 'neap', 'bore'][index]} tide moves water twice a day.`,
      ),
    ]);
    const sessionId = await createWith(textPdf(pages), { prompt: 'a 60-second summary', mode: 'chat' });
    const waiting = await waitFor(sessionId, ['waiting_for_input', 'failed']);
    expect(waiting.status).toBe('waiting_for_input');
    const note = waiting.messages.find((message) => /is long: I/.test(message.content));
    expect(note?.content).toMatch(/read its first 3 of 6 pages/);
    const plan =
      waiting.messages.find((message) => message.content.startsWith('Here is my plan'))?.content ?? '';
    expect(plan).toMatch(/tidal/i);
    // Chapters 4 to 6 lie beyond the page limit: their tides (spring, neap, bore) are not in the script.
    expect(plan).not.toMatch(/spring|neap|bore/);

    const long: PdfPage[] = [
      Array.from({ length: 40 }, (_, line) => `Line ${line + 1} explains how tidal barrages store water.`),
    ];
    const cutId = await createWith(textPdf(long), { prompt: 'a 60-second summary', mode: 'chat' });
    const cut = await waitFor(cutId, ['waiting_for_input', 'failed']);
    const cutNote = cut.messages.find((message) => /is long: I/.test(message.content))?.content;
    const kept = Number(/kept its first (\d+) characters/.exec(cutNote ?? '')?.[1]);
    expect(kept).toBeGreaterThan(MAX_CHARACTERS - 60);
    expect(kept).toBeLessThanOrEqual(MAX_CHARACTERS);
    const cutPlan = cut.messages.find((message) => message.content.startsWith('Here is my plan'))?.content;
    expect(cutPlan).not.toMatch(/Line 40 /);
  });

  it.each([
    ['a damaged', corruptPdf(), /is damaged or not a PDF/],
    ['an image-only', textPdf([null]), /has no text layer/],
    ['an encrypted', textPdf([['secret tides']], { encrypted: true }), /is encrypted/],
  ])(
    'fails a session with %s PDF as document_unreadable, naming the file, charging nothing',
    async (_, pdf, reason) => {
      const { apiKey } = await api.newWorkspace();
      const credits = async () =>
        (await api.call<{ data: { remaining_credits: number } }>('GET', '/v3/users/me', { key: apiKey })).body
          .data.remaining_credits;
      const before = await credits();
      expect(before).toBeGreaterThan(0);
      const sessionId = await createWith(
        pdf,
        { prompt: 'a 20-second summary of this report', callback_id: 'report-1' },
        apiKey,
      );
      const failed = await waitFor(sessionId, ['completed', 'failed'], apiKey);
      expect(failed.status).toBe('failed');
      expect(failed.failure_code).toBe('document_unreadable');
      expect(failed.failure_message).toMatch(reason);
      expect(failed.failure_message).toMatch(/The PDF document \(resource [0-9a-f]{32}\)/);
      expect(failed.failure_message).toMatch(/Nothing was charged/);
      expect(failed.video_id).toBeUndefined();
      expect(failed.messages.at(-1)).toMatchObject({ role: 'agent', type: 'error' });
      const events = () =>
        capture.events.filter((event) => (event.detail as { entity_id?: string }).entity_id === sessionId);
      await expect.poll(() => events().length).toBe(1);
      const event = events()[0] as EventBusEvent;
      expect(event['detail-type']).toBe('video_agent.fail');
      expect((event.detail as { event_data: Record<string, unknown> }).event_data).toMatchObject({
        session_id: sessionId,
        status: 'failed',
        callback_id: 'report-1',
        failure_code: 'document_unreadable',
      });
      expect(await credits()).toBe(before);
    },
  );
});
