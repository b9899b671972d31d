/**
 * The steps of the video agent job (video-agent-job.ts). Each starts from the session as stored and
 * writes only while its run is the session's current, running one (`updateRun`): a stopped or newer
 * run makes an older step's writes no-ops.
 */
import { CATALOG_SOUNDS } from '../catalog/sound-catalog.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { type PdfText, PdfUnreadableError, readPdfText } from '../engines/documents/pdf-text.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { putMediaObject, readMediaObject } from '../media/media-store.js';
import { getVideo, VIDEO_STATUS } from '../videos/videos.js';
import { admitPlanDraft } from './agent-drafts.js';
import { type AgentPlan, describePlan, type PlanningInput } from './agent-plan.js';
import { writePlan } from './agent-planner.js';
import {
  type AgentFile,
  type AgentResource,
  type AgentSession,
  agentMessage,
  currentVideoId,
  MESSAGE_ROLES,
  MESSAGE_TYPES,
  RESOURCE_KINDS,
  RUN_KINDS,
  RUN_STATES,
  SESSION_STATUS,
  sessionMediaKeys,
  updateRun,
  withMessages,
} from './agent-sessions.js';
import { styleOf } from './agent-styles.js';
import {
  PLAN_NEXT,
  startNextQueued,
  VIDEO_AGENT_FAILURE,
  type VideoAgentRef,
  videoAgentJob,
} from './video-agent-job.js';

/** Progress of a run: planned, draft admitted, then the draft's own progress up to 100. */
const PROGRESS = { thinking: 5, planned: 15, admitted: 20 } as const;

/** The session of a run still running, else undefined (stopped, superseded, ended, gone). */
async function runningSession(ref: VideoAgentRef): Promise<AgentSession | undefined> {
  const session = await resumeJob(videoAgentJob, ref);
  return session?.run_state === RUN_STATES.running ? session : undefined;
}

/** A PDF's text within the configured limits, or the run's failure naming the file. */
async function documentText(file: AgentFile): Promise<PdfText> {
  const { documentMaxPages, documentMaxCharacters } = config();
  try {
    return await readPdfText(await readMediaObject(file.key), {
      maxPages: documentMaxPages,
      maxCharacters: documentMaxCharacters,
    });
  } catch (error) {
    if (!(error instanceof PdfUnreadableError)) throw error;
    throw new JobFailure(
      VIDEO_AGENT_FAILURE.documentUnreadable,
      `The PDF document ${fileName(file)} ${error.reason}, so I could not read it. Send a PDF with selectable text, or the text itself (files item {type: "base64", media_type: "text/plain", data}). Nothing was charged.`,
      { cause: error },
    );
  }
}

/** How a message names a file the user sent: its resource, and the asset it came from. */
const fileName = (file: AgentFile) =>
  `(resource ${file.resource_id}${file.asset_id ? `, asset ${file.asset_id}` : ''})`;

/** What was left out of a document the limits cut, as the plan's message says it; null when nothing was. */
function documentCut(file: AgentFile, read: PdfText): string | null {
  const cuts = [
    ...(read.pagesRead < read.pages ? [`read its first ${read.pagesRead} of ${read.pages} pages`] : []),
    ...(read.charactersCut ? [`kept its first ${read.text.length} characters`] : []),
  ];
  return cuts.length > 0 ? `The PDF document ${fileName(file)} is long: I ${cuts.join(' and ')}.` : null;
}

/** What the planner reads (the prompt, the user's later messages, the text of text files and PDFs), and what was cut. */
async function planningInput(session: AgentSession): Promise<{ input: PlanningInput; cuts: string[] }> {
  const sources: string[] = [];
  const cuts: string[] = [];
  for (const file of session.files) {
    if (file.kind === 'text') sources.push((await readMediaObject(file.key)).toString('utf8'));
    if (file.kind === 'document') {
      const read = await documentText(file);
      sources.push(read.text);
      const cut = documentCut(file, read);
      if (cut) cuts.push(cut);
    }
  }
  const userMessages = session.messages
    .filter((message) => message.role === MESSAGE_ROLES.user && message.type === MESSAGE_TYPES.text)
    .map((message) => message.content);
  return {
    input: {
      prompt: session.prompt,
      // The first user message is the prompt itself.
      messages: userMessages.slice(1),
      sources,
      mediaFiles: session.files.filter((file) => file.kind === 'image' || file.kind === 'video').length,
      presenter: true,
      styleMood: styleOf(session.options.style_id).music_mood,
    },
    cuts,
  };
}

async function storeText(session: AgentSession, name: string, body: string, type: string): Promise<string> {
  const key = sessionMediaKeys.file(session, name);
  await putMediaObject(session.workspace_id, key, Buffer.from(body), type);
  return key;
}

const agentResource = (
  kind: AgentResource['resource_type'],
  key: string | null,
  metadata: Record<string, unknown>,
  videoId: string | null = null,
): AgentResource => ({
  resource_id: newId(),
  resource_type: kind,
  source_type: 'agent',
  key,
  video_id: videoId,
  metadata,
  created_at: nowSeconds(),
});

const scriptText = (plan: AgentPlan) =>
  `${plan.title}\n\n${plan.scenes.map((scene) => `[${scene.id}] ${scene.on_screen_text}\n${scene.narration}`).join('\n\n')}\n`;

async function plan(ref: VideoAgentRef): Promise<{ next: (typeof PLAN_NEXT)[keyof typeof PLAN_NEXT] }> {
  const session = await runningSession(ref);
  if (!session) return { next: PLAN_NEXT.end };
  if (session.run_kind === RUN_KINDS.edit) return { next: PLAN_NEXT.watch };
  if (session.run_kind === RUN_KINDS.render && session.plan) return { next: PLAN_NEXT.render };
  const thinking = await updateRun(session, ref.run_id, {
    status: SESSION_STATUS.thinking,
    progress: PROGRESS.thinking,
  });
  if (!thinking) return { next: PLAN_NEXT.end };
  const { input, cuts } = await planningInput(thinking);
  const written = await writePlan(input);
  const planResource = agentResource(
    RESOURCE_KINDS.plan,
    await storeText(
      thinking,
      `runs/${ref.run_id}/plan.json`,
      JSON.stringify(written, null, 2),
      'application/json',
    ),
    { title: written.title, scenes: written.scenes.length, planner: written.planner, tone: written.tone },
  );
  const scriptResource = agentResource(
    RESOURCE_KINDS.script,
    await storeText(
      thinking,
      `runs/${ref.run_id}/script.txt`,
      scriptText(written),
      'text/plain; charset=utf-8',
    ),
    { title: written.title, words: scriptText(written).split(/\s+/).length },
  );
  const waits = thinking.mode === 'chat' && thinking.run_kind === RUN_KINDS.plan;
  const messages = [
    ...cuts.map((cut) => agentMessage(MESSAGE_ROLES.agent, MESSAGE_TYPES.text, cut)),
    agentMessage(MESSAGE_ROLES.agent, MESSAGE_TYPES.text, describePlan(written)),
    agentMessage(MESSAGE_ROLES.agent, MESSAGE_TYPES.resource, 'The plan and the script.', [
      planResource.resource_id,
      scriptResource.resource_id,
    ]),
    ...(waits
      ? [
          agentMessage(
            MESSAGE_ROLES.agent,
            MESSAGE_TYPES.text,
            'Shall I make it? Reply "go" to render this plan, or tell me what to change (more details, another tone or length).',
          ),
        ]
      : []),
  ];
  const planned = await updateRun(thinking, ref.run_id, {
    plan: written,
    title: written.title,
    engines: { ...thinking.engines, planner: written.planner },
    resources: [...thinking.resources, planResource, scriptResource],
    messages: withMessages(thinking, ...messages),
    ...(waits
      ? { status: SESSION_STATUS.waitingForInput, progress: 0, run_state: RUN_STATES.ended }
      : { status: SESSION_STATUS.reviewing, progress: PROGRESS.planned }),
  });
  // Waiting for input ends the run: a follow-up queued meanwhile starts now.
  if (planned && waits) await startNextQueued(planned);
  return { next: planned && !waits ? PLAN_NEXT.render : PLAN_NEXT.end };
}

/** Which music the draft has, and why: the catalog's best match for the plan's mood. */
function musicNote(soundId: string | undefined, mood: string): string {
  if (!soundId) return `, no music (nothing in the sound catalog matches "${mood}")`;
  const sound = CATALOG_SOUNDS.find((entry) => entry.id === soundId);
  return `, music "${sound?.name ?? soundId}" (${soundId}, the sound catalog's best match for "${mood}")`;
}

async function render(ref: VideoAgentRef): Promise<null> {
  const session = await runningSession(ref);
  if (!session?.plan) return null;
  const reviewing = await updateRun(session, ref.run_id, { status: SESSION_STATUS.reviewing });
  if (!reviewing?.plan) return null;
  const draft = await admitPlanDraft(reviewing, reviewing.plan);
  const resource = agentResource(
    RESOURCE_KINDS.draft,
    null,
    { title: draft.title, music_sound_id: draft.render.music?.sound_id ?? null },
    draft.video_id,
  );
  await updateRun(reviewing, ref.run_id, {
    status: SESSION_STATUS.generating,
    progress: PROGRESS.admitted,
    drafts: [...reviewing.drafts, draft.video_id],
    resources: [...reviewing.resources, resource],
    messages: withMessages(
      reviewing,
      agentMessage(
        MESSAGE_ROLES.agent,
        MESSAGE_TYPES.resource,
        `Rendering the draft (video ${draft.video_id}): ${reviewing.plan.scenes.length} scenes${musicNote(draft.render.music?.sound_id, reviewing.plan.music_mood)}.`,
        [resource.resource_id],
      ),
    ),
  });
  return null;
}

async function watch(ref: VideoAgentRef): Promise<{ done: boolean }> {
  const session = await runningSession(ref);
  if (!session) return { done: true };
  const videoId = currentVideoId(session);
  const video = videoId ? await getVideo(session.workspace_id, videoId, true) : undefined;
  if (!video) {
    throw new JobFailure(
      VIDEO_AGENT_FAILURE.draftMissing,
      `The draft video ${videoId ?? '(none)'} was deleted before it finished.`,
    );
  }
  if (video.status === VIDEO_STATUS.failed) {
    throw new JobFailure(
      video.failure_code ?? VIDEO_AGENT_FAILURE.internalError,
      `The draft video ${video.video_id} failed: ${video.failure_message ?? 'no reason given'}`,
    );
  }
  if (video.status !== VIDEO_STATUS.completed) {
    const progress = PROGRESS.admitted + Math.round((video.progress * (99 - PROGRESS.admitted)) / 100);
    if (progress !== session.progress) await updateRun(session, ref.run_id, { progress });
    return { done: false };
  }
  const reused = video.reused_speech ?? [];
  const spoken = video.render.scenes.map((scene) => scene.id).filter((id) => !reused.includes(id));
  const note =
    reused.length > 0
      ? ` Spoken again: ${spoken.join(', ') || 'none'}; reused from the previous draft: ${reused.join(', ')}.`
      : '';
  const draftResource = session.resources.find((resource) => resource.video_id === video.video_id);
  const ended = await updateRun(session, ref.run_id, {
    status: SESSION_STATUS.completed,
    run_state: RUN_STATES.ended,
    progress: 100,
    completed_at: nowSeconds(),
    failure_code: null,
    failure_message: null,
    messages: withMessages(
      session,
      agentMessage(
        MESSAGE_ROLES.agent,
        MESSAGE_TYPES.resource,
        `Your video is ready: ${video.video_id} (${video.duration ?? 0} s). Watch it with GET /v3/videos/${video.video_id}; to change a scene, send an edit_plan with scene ids from GET /v3/videos/${video.video_id}/scenes.${note}`,
        draftResource ? [draftResource.resource_id] : [],
      ),
    ),
  });
  await endJob(videoAgentJob, ref, ended);
  return { done: true };
}

export const Plan = /* @__PURE__ */ jobStep(videoAgentJob, 'Plan', plan);
export const Render = /* @__PURE__ */ jobStep(videoAgentJob, 'Render', render);
export const Watch = /* @__PURE__ */ jobStep(videoAgentJob, 'Watch', watch);
