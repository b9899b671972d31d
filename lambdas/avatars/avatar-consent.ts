/**
 * Consent of a digital twin (`POST /v3/avatars/{group_id}/consent`): a video of the person saying they
 * agree, reviewed before any video may show their twin.
 *
 * - With `consent_video`, the video is stored and reviewed at once (the consent review job,
 *   avatar-consent-job.ts): `consent_status` is `pending`, then `approved`, or `rejected` with the reason.
 * - Without it, the answer carries a consent `url`: a page of this service (consent-page.ts) where the
 *   person records or uploads the video, which is then reviewed the same way. The page's token is a
 *   bearer secret: only its SHA-256 is stored, and it expires after `CONSENT_PAGE_TTL_SECONDS`.
 *
 * The route is for whitelisted Enterprise accounts only (spec): an administrator switches it on per
 * account (`admin workspace update <id> --consent-api on`); everyone else gets 403 `forbidden`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Plan } from '../accounts/workspaces.js';
import { getWorkspace } from '../accounts/workspaces.js';
import { type MediaInput, type ResolvedMedia, resolveMediaInput } from '../assets/media-inputs.js';
import { findStockAvatarGroup } from '../catalog/stock-avatars.js';
import { ConflictError, ForbiddenError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { getItem, putItem } from '../core/repository.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { mediaKeys } from '../media/media-keys.js';
import { copyMediaObject, deleteMediaObject } from '../media/media-store.js';
import { consentReviewJob } from './avatar-consent-job.js';
import {
  type AvatarGroupRecord,
  CONSENT_STATUS,
  getGroupRecord,
  LOOK_STATUS,
  looksOfGroup,
  updateGroupRecord,
} from './avatar-records.js';

/** Plans whose accounts can be whitelisted for the consent API. */
const CONSENT_API_PLANS: ReadonlySet<Plan> = new Set(['enterprise', 'business_plus']);

/** How long a consent page works after it was asked for. */
export const CONSENT_PAGE_TTL_SECONDS = 7 * 24 * 3600;
/** Largest consent video. */
export const MAX_CONSENT_VIDEO_BYTES = 200 * 1024 * 1024;

/** Where the consent page of a token lives, relative to the API's base URL. */
export const consentPagePath = (token: string) => `/v3/avatar-consent/${token}`;

interface ConsentTokenItem {
  pk: string;
  sk: string;
  workspace_id: string;
  group_id: string;
  reroute_url: string | null;
  expires_at: number;
}

const tokenKey = (token: string) => {
  const hash = createHash('sha256').update(token).digest('hex');
  return { pk: `AVATAR_CONSENT#${hash}`, sk: 'AVATAR_CONSENT' };
};

async function twinGroup(workspaceId: string, groupId: string): Promise<AvatarGroupRecord> {
  if (findStockAvatarGroup(groupId)) {
    throw new ForbiddenError(`Avatar group ${groupId} is a public avatar of the service.`, 'forbidden', {
      param: 'group_id',
    });
  }
  const group = await getGroupRecord(workspaceId, groupId, true);
  if (!group) throw new NotFoundError(`Avatar group ${groupId} not found.`, 'avatar_not_found', 'group_id');
  if (group.avatar_type !== 'digital_twin') {
    throw new InvalidParameterError(
      `Avatar group ${groupId} holds photo avatars, which need no consent; consent is for digital twins.`,
      'group_id',
    );
  }
  return group;
}

/**
 * Submits a stored consent video for review: the group is `pending` under a new review (a newer
 * submission supersedes one under review), and the review job starts.
 */
export async function submitConsentVideo(
  group: AvatarGroupRecord,
  video: Pick<ResolvedMedia, 'objectKey' | 'mimeType' | 'source'>,
): Promise<AvatarGroupRecord> {
  // The face to compare with: the twin's first trained look (the review reads it by key).
  const reference = (await looksOfGroup(group.workspace_id, group.group_id))
    .reverse()
    .find((look) => look.status === LOOK_STATUS.completed && look.preview_key !== null);
  if (!reference) {
    throw new ConflictError(
      `The digital twin of group ${group.group_id} has not finished training; submit the consent once GET /v3/avatars/${group.group_id} no longer says processing.`,
      'resource_not_ready',
      { param: 'group_id' },
    );
  }
  const reviewId = newId();
  // Kept under the group (deleted with it), whatever the video came as: the evidence of consent.
  const kept = mediaKeys.avatarConsent(group.workspace_id, group.group_id, reviewId);
  await copyMediaObject(group.workspace_id, video.objectKey, kept, video.mimeType);
  if (video.source !== 'asset') await deleteMediaObject(video.objectKey);
  const pending = await updateGroupRecord(group.workspace_id, group.group_id, {
    consent_status: CONSENT_STATUS.pending,
    consent_reason: null,
    consent_review_id: reviewId,
    consent_video_key: kept,
    consent_reference_look_id: reference.look_id,
    consent_submitted_at: nowSeconds(),
    consent_reviewed_at: null,
  });
  if (!pending)
    throw new NotFoundError(`Avatar group ${group.group_id} not found.`, 'avatar_not_found', 'group_id');
  await startJob(consentReviewJob, {
    workspace_id: group.workspace_id,
    group_id: group.group_id,
    review_id: reviewId,
  });
  return pending;
}

export interface ConsentRequest {
  consent_video?: MediaInput | undefined;
  reroute_url?: string | undefined;
}

/**
 * `POST /v3/avatars/{group_id}/consent`.
 * @param baseUrl the API's own URL (the consent page is served by it)
 * @throws ServiceError 403 (not whitelisted, a public group), 404, 400 (not a digital twin, the video)
 */
export async function requestConsent(
  workspaceId: string,
  groupId: string,
  request: ConsentRequest,
  baseUrl: string,
): Promise<{ group: AvatarGroupRecord; url?: string }> {
  // The group first: an unknown one is 404 whoever asks.
  const group = await twinGroup(workspaceId, groupId);
  const workspace = await getWorkspace(workspaceId);
  if (!workspace?.consent_api || !CONSENT_API_PLANS.has(workspace.plan)) {
    throw new ForbiddenError(
      'The avatar consent API is available to whitelisted Enterprise accounts only; ask your account administrator to enable it.',
      'forbidden',
    );
  }
  if (request.consent_video !== undefined) {
    const video = await resolveMediaInput(workspaceId, request.consent_video, {
      param: 'consent_video',
      accept: ['video'],
      maxBytes: MAX_CONSENT_VIDEO_BYTES,
    });
    return { group: await submitConsentVideo(group, video) };
  }
  const token = randomBytes(24).toString('base64url');
  const item: ConsentTokenItem = {
    ...tokenKey(token),
    workspace_id: workspaceId,
    group_id: groupId,
    reroute_url: request.reroute_url ?? null,
    expires_at: nowSeconds() + CONSENT_PAGE_TTL_SECONDS,
  };
  await putItem({ ...item });
  return { group, url: `${baseUrl}${consentPagePath(token)}` };
}

/** The group a consent page's token opens, or undefined (unknown, expired, or the group is gone). */
export async function consentPageTarget(
  token: string,
): Promise<{ group: AvatarGroupRecord; rerouteUrl: string | null } | undefined> {
  if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return undefined;
  const item = await getItem<ConsentTokenItem>(tokenKey(token), true);
  if (!item || item.expires_at <= nowSeconds()) return undefined;
  const group = await getGroupRecord(item.workspace_id, item.group_id, true);
  return group ? { group, rerouteUrl: item.reroute_url } : undefined;
}
