/**
 * The consent page (`GET`/`POST /v3/avatar-consent/{token}`): what the `url` of a consent request
 * without a video opens. The person reads the statement aloud, records it with their camera (the file
 * input asks phones for the front camera) or uploads a video, and submits; the video is then reviewed
 * like a `consent_video` of the API (avatar-consent.ts). Static HTML without scripts: the form posts
 * `multipart/form-data`.
 */
import { resolveMediaInput } from '../assets/media-inputs.js';
import { describeBytes } from '../assets/upload-limits.js';
import { InvalidParameterError } from '../core/errors.js';
import { detectMediaType } from '../media/media-types.js';
import { submitConsentVideo } from './avatar-consent.js';
import type { AvatarGroupRecord } from './avatar-records.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** The sentence the person says on camera. */
export function consentStatement(group: Pick<AvatarGroupRecord, 'name'>): string {
  return `I consent to the creation and use of a digital twin of my likeness and voice, named "${group.name}", for videos made with this service.`;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1d2430}blockquote{font-size:1.15rem;border-left:4px solid #4f6a8f;margin:1.5rem 0;padding:.5rem 1rem;background:#f3f6fa}button{font-size:1rem;padding:.6rem 1.2rem}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export const CONSENT_PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

export function consentFormPage(group: AvatarGroupRecord, maxBytes: number): string {
  return page(
    'Consent to your digital twin',
    `<p>Record a short video of yourself, looking at the camera, saying:</p><blockquote>${escapeHtml(consentStatement(group))}</blockquote><form method="post" enctype="multipart/form-data"><p><input type="file" name="consent_video" accept="video/*" capture="user" required></p><p><button type="submit">Submit for review</button></p></form><p><small>Videos up to ${escapeHtml(describeBytes(maxBytes))}: mp4 or webm. The video is kept as the record of your consent and deleted with the avatar.</small></p>`,
  );
}

export const submittedConsentPage = () =>
  page(
    'Thank you',
    '<p>Your consent video was submitted and is being reviewed: the face must be the one of the digital twin, and the statement must be heard.</p>',
  );

export const refusedConsentPage = (reason: string) =>
  page('The video was not accepted', `<p>${escapeHtml(reason)}</p><p><a href="">Try again</a></p>`);

/** A video posted to a consent page: checked to be a video, stored and submitted for review. */
export async function submitFromConsentPage(
  group: AvatarGroupRecord,
  upload: { bytes: Buffer; declaredType: string },
): Promise<void> {
  const detected = await detectMediaType(upload.bytes);
  if (detected?.kind !== 'video') {
    throw new InvalidParameterError('The file is not a video (mp4, mov or webm).', 'consent_video');
  }
  const video = await resolveMediaInput(
    group.workspace_id,
    { type: 'base64', media_type: detected.mimeType, data: upload.bytes.toString('base64') },
    { param: 'consent_video', accept: ['video'] },
  );
  await submitConsentVideo(group, video);
}
