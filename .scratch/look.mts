import { writeFile, readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { updateWorkspace } from '../lambdas/accounts/workspaces.js';
import { renderLookPhoto } from '../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../lambdas/catalog/stock-avatars.js';
import { startTestStack } from '../test/support/test-stack.js';
import { talkingClipMaker } from '../test/unit/engines/vision/talking-clip.js';

const out = '/tmp/look';
const api = await startTestStack({ engines: 'reference', stepFunctionsTimeScale: 0.001 });
await updateWorkspace(api.workspaceId, { plan: 'enterprise', consent_api: true });
const b64 = (b: Buffer, t: string) => ({ type: 'base64', media_type: t, data: b.toString('base64') });
async function settle(path: string) {
  for (;;) {
    const r = (await api.call<{ data: any }>('GET', path)).body.data;
    if (!['processing', 'pending'].includes(r.status)) return r;
    await new Promise((x) => setTimeout(x, 200));
  }
}
async function video(avatar_id: string, name: string, extra: Record<string, unknown> = {}) {
  const c = await api.call<{ data: any }>('POST', '/v3/videos', { body: { type: 'avatar', avatar_id, script: 'Hello! Papa bought a map, and we are all going to the park today.', ...extra } });
  if (c.status !== 200) { console.log(name, c.status, JSON.stringify(c.body)); return; }
  const v = await settle(`/v3/videos/${c.body.data.video_id}`);
  console.log(name, v.status, v.failure_message);
  if (v.video_url) await writeFile(`${out}/${name}.mp4`, Buffer.from(await (await fetch(v.video_url)).arrayBuffer()));
}
const maya = findStockLook('sofia-newsroom')!;
const photo = await sharp(await renderLookPhoto(maya)).resize(1280, 720).jpeg().toBuffer();
const p = await api.call<{ data: any }>('POST', '/v3/avatars', { body: { type: 'photo', name: 'Sofia', file: b64(photo, 'image/jpeg') } });
const pl = await settle(`/v3/avatars/looks/${p.body.data.avatar_id}`);
console.log('photo look', pl.status, pl.error);
await writeFile(`${out}/photo-preview.jpg`, Buffer.from(await (await fetch(pl.preview_image_url)).arrayBuffer()));
await video(pl.id, 'photo');
await video(pl.id, 'photo-bg', { background: { type: 'color', value: '#224466' } });
const pr = await api.call<{ data: any }>('POST', '/v3/avatars', { body: { type: 'prompt', name: 'Prompt', prompt: 'an older man with grey hair and glasses in a red sweater at the beach' } });
const prl = await settle(`/v3/avatars/looks/${pr.body.data.avatar_id}`);
console.log('prompt look', prl.status, prl.error);
await writeFile(`${out}/prompt-preview.jpg`, Buffer.from(await (await fetch(prl.preview_image_url)).arrayBuffer()));
await video(prl.id, 'prompt');
const pack = await api.call<{ data: any }>('POST', '/v3/avatars/looks', { body: { type: 'look_pack', reference_look_id: pl.id } });
for (const [i, id] of (pack.body.data.look_ids as string[]).entries()) {
  const l = await settle(`/v3/avatars/looks/${id}`);
  console.log('pack', l.name, l.status, l.error, l.image_width, l.image_height);
  await writeFile(`${out}/pack-${i}.jpg`, Buffer.from(await (await fetch(l.preview_image_url)).arrayBuffer()));
}
const ppack = await api.call<{ data: any }>('POST', '/v3/avatars/looks', { body: { type: 'look_pack', reference_look_id: prl.id } });
for (const [i, id] of (ppack.body.data.look_ids as string[]).entries()) {
  const l = await settle(`/v3/avatars/looks/${id}`);
  console.log('drawn pack', l.name, l.status, l.error);
  await writeFile(`${out}/dpack-${i}.jpg`, Buffer.from(await (await fetch(l.preview_image_url)).arrayBuffer()));
}
const make = await talkingClipMaker(out);
const clip = await make(`${out}/source.mp4`, { seconds: 8, shakeUntil: 2.5, sway: 4 });
const t = await api.call<{ data: any }>('POST', '/v3/avatars', { body: { type: 'digital_twin', name: 'Twin', file: b64(await readFile(clip), 'video/mp4') } });
const tl = await settle(`/v3/avatars/looks/${t.body.data.avatar_id}`);
console.log('twin look', tl.status, tl.error);
const { updateGroupRecord } = await import('../lambdas/avatars/avatar-records.js');
await updateGroupRecord(api.workspaceId, tl.group_id, { consent_status: 'approved' });
await video(tl.id, 'twin');
await api.stop();
