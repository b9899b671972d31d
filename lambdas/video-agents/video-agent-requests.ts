/**
 * What the video agent routes do beyond validation: create a session (`POST /v3/video-agents`), send
 * it a follow-up (`POST /v3/video-agents/{session_id}`: a message, or an edit plan that makes a new
 * draft at once), stop it. Everything a request names is checked before anything is written (style,
 * avatar, voice, brand kit, files), so a refused request leaves nothing behind but unreferenced files
 * under fresh keys.
 */
import { getWorkspace, type Workspace } from '../accounts/workspaces.js';
import { decodeBase64Strict, type MediaInput, resolveMediaInput } from '../assets/media-inputs.js';
import { requireUsableLook } from '../avatars/look-presenters.js';
import { assertCanPay } from '../billing/credits.js';
import { capResolution, videoCredits } from '../billing/plans.js';
import { brandKitForVideo } from '../brand/brand-kits.js';
import {
  ConflictError,
  ForbiddenError,
  InvalidParameterError,
  NotFoundError,
  ServiceError,
} from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { putMediaObject } from '../media/media-store.js';
import { getVideo, VIDEO_STATUS } from '../videos/videos.js';
import { resolveVoice, VOICE_RESOLUTION_FAILURE, VoiceResolutionError } from '../voices/voice-resolution.js';
import { admitEditedDraft, DRAFT_RESOLUTION } from './agent-drafts.js';
import { applyEditPlan, checkEditPlan } from './agent-edits.js';
import {
  AGENT_MODES,
  type AgentFile,
  type AgentMode,
  type AgentOptions,
  type AgentResource,
  type AgentSession,
  agentMessage,
  type FollowUp,
  type FollowUpChoices,
  getSession,
  isWorking,
  MAX_QUEUED_FOLLOW_UPS,
  MESSAGE_ROLES,
  MESSAGE_TYPES,
  newRun,
  putNewSession,
  queueFollowUp,
  RESOURCE_KINDS,
  RUN_KINDS,
  RUN_STATES,
  type RunKind,
  requireSession,
  SESSION_STATUS,
  sessionBusy,
  sessionMediaKeys,
  startRun,
  updateRun,
  withMessages,
} from './agent-sessions.js';
import { DEFAULT_STYLE_ID, findStyle } from './agent-styles.js';
import { videoAgentJob } from './video-agent-job.js';

/** Largest text file sent as source content (its words are planned from). */
export const MAX_TEXT_FILE_BYTES = 1_000_000;
export const MAX_AGENT_FILES = 20;
/** Text types a file may be sent as (base64): source content, not media. */
export const TEXT_MEDIA_TYPES = ['text/plain', 'text/markdown'] as const;

export interface CreateSessionRequest {
  prompt: string;
  mode: AgentMode;
  style_id?: string | undefined;
  orientation?: 'landscape' | 'portrait' | undefined;
  avatar_id?: string | undefined;
  voice_id?: string | undefined;
  brand_kit_id?: string | undefined;
  files?: MediaInput[] | undefined;
  incognito_mode: boolean;
  callback_url?: string | undefined;
  callback_id?: string | undefined;
}

export interface FollowUpRequest extends FollowUpChoices {
  files?: MediaInput[] | undefined;
}

async function workspaceOf(workspaceId: string): Promise<Workspace> {
  const workspace = await getWorkspace(workspaceId, true);
  if (!workspace) throw new Error(`Workspace ${workspaceId} not found`);
  return workspace;
}

/** The request's presenter, voice and brand kit, checked now (a video would refuse them later). */
async function checkChoices(
  workspace: Workspace,
  choices: {
    avatar_id?: string | undefined;
    voice_id?: string | undefined;
    brand_kit_id?: string | undefined;
  },
): Promise<void> {
  if (choices.avatar_id !== undefined)
    await requireUsableLook(workspace.workspace_id, choices.avatar_id, 'avatar_id');
  if (choices.voice_id !== undefined) {
    try {
      await resolveVoice(workspace.workspace_id, choices.voice_id);
    } catch (error) {
      if (!(error instanceof VoiceResolutionError)) throw error;
      throw voiceRefusal(error);
    }
  }
  if (choices.brand_kit_id !== undefined) await brandKitForVideo(workspace, choices.brand_kit_id);
}

function voiceRefusal(error: VoiceResolutionError): ServiceError {
  switch (error.failureCode) {
    case VOICE_RESOLUTION_FAILURE.notFound:
      return new NotFoundError(error.message, 'voice_not_found', 'voice_id');
    case VOICE_RESOLUTION_FAILURE.notReady:
      return new ConflictError(error.message, 'resource_not_ready', { param: 'voice_id' });
    default:
      return new ForbiddenError(error.message, 'voice_not_usable', { param: 'voice_id' });
  }
}

/**
 * The files of a request, stored: images and clips become scene material, PDFs (whose text is read
 * when the run plans) and text (base64 `text/plain` or `text/markdown`) become source content.
 */
async function admitFiles(
  session: Pick<AgentSession, 'workspace_id' | 'session_id'>,
  files: readonly MediaInput[],
): Promise<{ files: AgentFile[]; resources: AgentResource[] }> {
  const admitted: AgentFile[] = [];
  const resources: AgentResource[] = [];
  for (const [index, input] of files.entries()) {
    const param = `files[${index}]`;
    const resourceId = newId();
    let file: AgentFile;
    let metadata: Record<string, unknown>;
    const declared =
      input.type === 'base64' ? input.media_type.split(';')[0]?.trim().toLowerCase() : undefined;
    if (input.type === 'base64' && (TEXT_MEDIA_TYPES as readonly string[]).includes(declared ?? '')) {
      const bytes = decodeBase64Strict(input.data, MAX_TEXT_FILE_BYTES, `${param}.data`);
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        throw new InvalidParameterError(`${param}.data is not UTF-8 text.`, `${param}.data`);
      }
      if (text.trim() === '') throw new InvalidParameterError(`${param} holds no text.`, `${param}.data`);
      const key = sessionMediaKeys.file(session, `files/${resourceId}.txt`);
      await putMediaObject(session.workspace_id, key, Buffer.from(text), 'text/plain; charset=utf-8');
      file = { resource_id: resourceId, kind: 'text', key };
      metadata = { media_type: declared, characters: text.length };
    } else {
      const media = await resolveMediaInput(session.workspace_id, input, {
        param,
        accept: ['image', 'video', 'document'],
      });
      file = {
        resource_id: resourceId,
        kind: media.kind as 'image' | 'video' | 'document',
        key: media.objectKey,
        ...(media.assetId ? { asset_id: media.assetId } : {}),
      };
      metadata = {
        media_type: media.mimeType,
        size_bytes: media.sizeBytes,
        ...(media.assetId ? { asset_id: media.assetId } : {}),
      };
    }
    admitted.push(file);
    resources.push({
      resource_id: resourceId,
      resource_type: RESOURCE_KINDS.file,
      source_type: 'user',
      key: file.key,
      video_id: null,
      metadata: { ...metadata, kind: file.kind },
      created_at: nowSeconds(),
    });
  }
  return { files: admitted, resources };
}

/** The user's message with the files it brought, as the conversation shows it. */
function userMessages(text: string | undefined, resources: AgentResource[]) {
  return [
    ...(text !== undefined ? [agentMessage(MESSAGE_ROLES.user, MESSAGE_TYPES.text, text)] : []),
    ...(resources.length > 0
      ? [
          agentMessage(
            MESSAGE_ROLES.user,
            MESSAGE_TYPES.resource,
            `${resources.length} file${resources.length === 1 ? '' : 's'} attached.`,
            resources.map((resource) => resource.resource_id),
          ),
        ]
      : []),
  ];
}

/** A workspace that could not pay for a draft is refused before anything is planned (402, as a video create). */
function assertCanPayForDraft(workspace: Workspace): void {
  assertCanPay(workspace, videoCredits(0, capResolution(workspace.plan, DRAFT_RESOLUTION)));
}

export async function createSession(
  workspaceId: string,
  request: CreateSessionRequest,
): Promise<AgentSession> {
  const workspace = await workspaceOf(workspaceId);
  assertCanPayForDraft(workspace);
  if (request.style_id !== undefined && !findStyle(request.style_id)) {
    throw new InvalidParameterError(
      `Style ${request.style_id} does not exist; list the styles with GET /v3/video-agents/styles.`,
      'style_id',
    );
  }
  await checkChoices(workspace, request);
  const ids = { workspace_id: workspaceId, session_id: newId() };
  const { files, resources } = await admitFiles(ids, request.files ?? []);
  const options: AgentOptions = {
    style_id: request.style_id ?? DEFAULT_STYLE_ID,
    orientation: request.orientation ?? 'landscape',
    avatar_id: request.avatar_id ?? null,
    voice_id: request.voice_id ?? null,
    brand_kit_id: request.brand_kit_id ?? null,
  };
  const session: AgentSession = {
    ...ids,
    ...newRun(RUN_KINDS.plan),
    mode: request.mode,
    prompt: request.prompt,
    status: SESSION_STATUS.thinking,
    progress: 0,
    title: null,
    options,
    incognito_mode: request.incognito_mode,
    callback_url: request.callback_url ?? null,
    callback_id: request.callback_id ?? null,
    messages: userMessages(request.prompt, resources),
    resources,
    files,
    plan: null,
    drafts: [],
    engines: {},
    failure_code: null,
    failure_message: null,
    queued: [],
    queue_version: 0,
    created_at: nowSeconds(),
    completed_at: null,
  };
  await putNewSession(session);
  await startJob(videoAgentJob, videoAgentJob.refOf(session));
  return session;
}

/** Words that approve a plan waiting for input (chat mode) rather than change it. */
const APPROVAL =
  /^\s*(go|go ahead|yes|yep|ok|okay|sure|approve[d]?|render( it)?|make it|do it|looks good|lgtm|proceed|continue)\b[\s.!]*$/i;

export const isApproval = (message: string) => APPROVAL.test(message);

export interface FollowUpResult {
  session: AgentSession;
  /** The follow-up's run: started, or queued behind the working run. */
  runId: string;
  /** The draft an edit plan made (none while the follow-up is queued). */
  videoId: string | null;
}

/**
 * Attempts at queueing or starting a follow-up while other requests and steps change the session: each
 * failed attempt means another writer succeeded, so this many lets every follow-up of a full queue sent
 * at once, and a run's end, through.
 */
const FOLLOW_UP_ATTEMPTS = MAX_QUEUED_FOLLOW_UPS + 2;

/**
 * A follow-up: checked and its files stored at once, then started, or, while a run works (or earlier
 * follow-ups wait), queued behind it to start when the runs before it end (`startQueuedFollowUp`).
 */
export async function sendFollowUp(session: AgentSession, request: FollowUpRequest): Promise<FollowUpResult> {
  const workspace = await workspaceOf(session.workspace_id);
  assertCanPayForDraft(workspace);
  await checkChoices(workspace, request);
  const { files: inputs, ...choices } = request;
  const { files, resources } = await admitFiles(session, inputs ?? []);
  const followUp: FollowUp = {
    run_id: newId(),
    choices,
    files,
    resources,
    messages: userMessages(request.message, resources),
  };
  let current = session;
  for (let attempt = 0; attempt < FOLLOW_UP_ATTEMPTS; attempt += 1) {
    if (isWorking(current)) {
      const queued = await queueFollowUp(current, followUp);
      if (queued) return { session: queued, runId: followUp.run_id, videoId: null };
    } else if (current.queued.length > 0) {
      // The run before ended and its queue has not started yet: start it first, keep this one's turn.
      await startQueuedFollowUp(current.workspace_id, current.session_id, current.run_id);
    } else {
      try {
        const { session: started, videoId } = await startFollowUp(current, followUp);
        return { session: started, runId: followUp.run_id, videoId };
      } catch (error) {
        if (
          !(
            error instanceof ConflictError &&
            error.code === sessionBusy().code &&
            error.param === 'session_id'
          )
        )
          throw error;
      }
    }
    current = await requireSession(current.workspace_id, current.session_id);
  }
  throw sessionBusy();
}

/**
 * Starts the oldest queued follow-up of a session whose run `endedRunId` ended (completed, failed,
 * waiting for input); one that cannot start (a stale edit plan, credits) fails its run with the reason
 * in the conversation, and the next one is tried. Idempotent: once a later run started, or the queue
 * is empty, nothing happens.
 */
export async function startQueuedFollowUp(
  workspaceId: string,
  sessionId: string,
  endedRunId: string,
): Promise<void> {
  let runId = endedRunId;
  for (let attempt = 0; attempt < FOLLOW_UP_ATTEMPTS; attempt += 1) {
    const session = await getSession(workspaceId, sessionId, true);
    if (!session || session.run_id !== runId || isWorking(session)) return;
    const [next, ...rest] = session.queued;
    if (!next) return;
    try {
      await startFollowUp(session, next, rest);
      return;
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status >= 500) throw error;
      if (error.code === sessionBusy().code && error.param === 'session_id') continue;
      // An edit plan's draft refused after the session was claimed: the claim kept its files.
      const now = await getSession(workspaceId, sessionId, true);
      if (!now) return;
      const claimed = now.run_id === next.run_id;
      if (!claimed && now.run_id !== runId) return;
      await refuseQueued(now, claimed ? { ...next, files: [], resources: [] } : next, error);
      runId = next.run_id;
    }
  }
}

/**
 * A queued follow-up that cannot start: its run fails at once, the reason in the conversation (no job
 * ran, so no event). The session after, else undefined (it changed meanwhile).
 */
async function refuseQueued(session: AgentSession, followUp: FollowUp, error: ServiceError) {
  return startRun(
    session,
    { ...newRun(RUN_KINDS.plan, followUp.run_id), run_state: RUN_STATES.ended },
    {
      queued: session.queued.filter((queued) => queued.run_id !== followUp.run_id),
      files: [...session.files, ...followUp.files],
      resources: [...session.resources, ...followUp.resources],
      messages: withMessages(
        { messages: withMessages(session, ...followUp.messages) },
        agentMessage(
          MESSAGE_ROLES.agent,
          MESSAGE_TYPES.error,
          `Your follow-up sent while I worked (run ${followUp.run_id}) could not start: ${error.message} (${error.code})`,
        ),
      ),
      status: SESSION_STATUS.failed,
      progress: 0,
      failure_code: error.code,
      failure_message: error.message,
      completed_at: nowSeconds(),
    },
  ).catch((conflict: unknown) => {
    if (conflict instanceof ConflictError) return undefined;
    throw conflict;
  });
}

/**
 * Starts a follow-up's run on a session that is not working (`queued`: what stays queued after it):
 * an edit plan makes its draft now (only its scenes spoken again) and the run follows it; a message
 * in chat mode that approves the plan renders it, any other message plans again (and, in chat mode,
 * waits for input again; in generate mode, renders).
 * @throws ConflictError 409 `resource_not_ready` (`param` `session_id`) when the session changed meanwhile
 */
async function startFollowUp(
  session: AgentSession,
  followUp: FollowUp,
  queued: FollowUp[] = session.queued,
): Promise<{ session: AgentSession; videoId: string | null }> {
  const { choices } = followUp;
  const options: AgentOptions = {
    ...session.options,
    ...(choices.avatar_id !== undefined ? { avatar_id: choices.avatar_id } : {}),
    ...(choices.voice_id !== undefined ? { voice_id: choices.voice_id } : {}),
    ...(choices.brand_kit_id !== undefined ? { brand_kit_id: choices.brand_kit_id } : {}),
  };
  const updated: Partial<AgentSession> = {
    options,
    queued,
    files: [...session.files, ...followUp.files],
    resources: [...session.resources, ...followUp.resources],
  };
  const messages = withMessages(session, ...followUp.messages);
  if (choices.edit_plan !== undefined) {
    const snapshotId = checkEditPlan(choices.edit_plan, {
      drafts: session.drafts,
      sceneIds: () => undefined,
    });
    const snapshot = await getVideo(session.workspace_id, snapshotId, true);
    if (!snapshot || snapshot.status !== VIDEO_STATUS.completed) {
      throw new ConflictError(
        `Draft ${snapshotId} has not finished rendering (or was deleted): edit it once GET /v3/videos/${snapshotId} is completed.`,
        'resource_not_ready',
        { param: 'edit_plan[0].scene_snapshot_video_id' },
      );
    }
    checkEditPlan(choices.edit_plan, {
      drafts: session.drafts,
      sceneIds: () => snapshot.render.scenes.map((scene) => scene.id),
    });
    const { scenes, edited } = applyEditPlan(snapshotId, snapshot.render.scenes, choices.edit_plan);
    const run = newRun(RUN_KINDS.edit, followUp.run_id);
    // Claim the session first (a concurrent follow-up gets 409), then admit the draft.
    const claimed = await startRun(session, run, {
      ...updated,
      messages: withMessages(
        { messages },
        agentMessage(
          MESSAGE_ROLES.user,
          MESSAGE_TYPES.text,
          `Edit plan: new narration for ${edited.join(', ')} of ${snapshotId}.`,
        ),
      ),
      status: SESSION_STATUS.reviewing,
      progress: 0,
      failure_code: null,
      failure_message: null,
      completed_at: null,
    });
    let draft: Awaited<ReturnType<typeof admitEditedDraft>>;
    try {
      draft = await admitEditedDraft(claimed, snapshot, scenes);
    } catch (error) {
      // Refused (credits, plan, brand policy): the session goes back to how it was.
      await updateRun(claimed, run.run_id, {
        status: session.status,
        progress: session.progress,
        run_state: RUN_STATES.ended,
        messages: session.messages,
        completed_at: session.completed_at,
        failure_code: session.failure_code,
        failure_message: session.failure_message,
      });
      throw error;
    }
    const resource: AgentResource = {
      resource_id: newId(),
      resource_type: RESOURCE_KINDS.draft,
      source_type: 'agent',
      key: null,
      video_id: draft.video_id,
      metadata: { title: draft.title, edited_scenes: edited, snapshot_video_id: snapshotId },
      created_at: nowSeconds(),
    };
    // Follow-ups may queue meanwhile: this write is conditional on the run only.
    const generating = await updateRun(claimed, run.run_id, {
      status: SESSION_STATUS.generating,
      progress: 20,
      drafts: [...claimed.drafts, draft.video_id],
      resources: [...claimed.resources, resource],
      messages: withMessages(
        claimed,
        agentMessage(
          MESSAGE_ROLES.agent,
          MESSAGE_TYPES.resource,
          `Rendering a new draft (video ${draft.video_id}) with ${edited.join(', ')} spoken again; every other scene reuses ${snapshotId}.`,
          [resource.resource_id],
        ),
      ),
    });
    // Stopped meanwhile: the draft renders on its own, and no run follows it.
    if (!generating) return { session: claimed, videoId: draft.video_id };
    await startJob(videoAgentJob, videoAgentJob.refOf(generating));
    return { session: generating, videoId: draft.video_id };
  }
  const message = choices.message ?? '';
  const kind: RunKind =
    session.mode === AGENT_MODES.chat &&
    session.status === SESSION_STATUS.waitingForInput &&
    session.plan !== null &&
    isApproval(message)
      ? RUN_KINDS.render
      : RUN_KINDS.plan;
  // In generate mode a new plan is rendered at once: the run is a render of a fresh plan.
  const started = await startRun(session, newRun(kind, followUp.run_id), {
    ...updated,
    messages,
    status: SESSION_STATUS.thinking,
    progress: 0,
    failure_code: null,
    failure_message: null,
    completed_at: null,
  });
  await startJob(videoAgentJob, videoAgentJob.refOf(started));
  return { session: started, videoId: null };
}
