/**
 * The video agent job (docs/architecture.md, "Jobs"): one run per create or follow-up of a session,
 * `state-machines/video-agent.asl.json`: Plan (write the script and scene plan; chat mode stops here,
 * waiting for input) → Render (draw the scene cards, admit the draft to the video pipeline) → Watch,
 * every few seconds, until the draft's own render job ends → the session is `completed` (event
 * `video_agent.success`) or `failed` with the reason (`video_agent.fail`). An edit-plan run's draft is
 * admitted by the request, so it starts at Watch.
 *
 * The session is not charged: each draft is a video of the workspace and pays as one (reserved when
 * admitted, settled or refunded by its render job). A run that fails before a draft charges nothing.
 */
import { z } from 'zod';
import { enqueueBatchItems } from '../batches/batch-queue.js';
import { GRANTS } from '../core/grants.js';
import { defineJob, JOB_OUTCOME } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import {
  type AgentSession,
  agentMessage,
  getSession,
  MESSAGE_ROLES,
  MESSAGE_TYPES,
  RUN_STATES,
  SESSION_STATUS,
  updateRun,
  withMessages,
} from './agent-sessions.js';
import { agentEventData } from './agent-views.js';

export const VIDEO_AGENT_FAILURE = {
  documentUnreadable: 'document_unreadable',
  draftMissing: 'draft_missing',
  timeout: 'video_agent_timeout',
  internalError: 'internal_error',
} as const;

/**
 * After a run ended (completed, failed, waiting for input): the batch worker starts the oldest queued
 * follow-up (`video_agent.next`), since a step cannot start a workflow. Sent again after a crash: the
 * start is idempotent.
 */
export async function startNextQueued(session: AgentSession): Promise<void> {
  if (session.queued.length === 0) return;
  await enqueueBatchItems([
    {
      kind: 'video_agent.next',
      workspace_id: session.workspace_id,
      session_id: session.session_id,
      run_id: session.run_id,
    },
  ]);
}

export const videoAgentRef = z.object({
  workspace_id: z.string().min(1),
  session_id: z.string().min(1),
  run_id: z.string().min(1),
});
export type VideoAgentRef = z.infer<typeof videoAgentRef>;

/** What follows Plan: render the plan, follow a draft already admitted, or nothing (waiting for input). */
export const PLAN_NEXT = { render: 'render', watch: 'watch', end: 'end' } as const;

/** Every step may end its run, and then queues the start of the next follow-up (`startNextQueued`). */
const AGENT_ITEMS = [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents, GRANTS.sendBatchItems] as const;

export const videoAgentJob = defineJob({
  name: 'video-agent',
  taskPrefix: 'VideoAgent',
  ref: videoAgentRef,
  executionName: (ref) => ref.run_id,
  refOf: (session: AgentSession) => ({
    workspace_id: session.workspace_id,
    session_id: session.session_id,
    run_id: session.run_id,
  }),
  stepsModule: 'video-agents/video-agent-steps',
  steps: {
    Plan: {
      description:
        'Video agent: read the prompt, messages and files (the text of PDFs too); write the script and scene plan (text generation engine, else the local planner); chat mode waits for input',
      input: videoAgentRef,
      output: z.object({ next: z.enum(Object.values(PLAN_NEXT)) }),
      deployment: {
        access: [...AGENT_ITEMS, GRANTS.generateText],
        // The PDF reader needs pdf.js with its native DOMMatrix (see MEDIA_IMAGE_PACKAGES).
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 1024,
        timeoutSeconds: 300,
      },
    },
    Render: {
      description:
        "Video agent: draw each scene's card in the style, admit the draft to the video pipeline (the batch worker starts its render)",
      input: videoAgentRef,
      output: z.null(),
      deployment: {
        access: [...AGENT_ITEMS],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 2048,
        timeoutSeconds: 300,
      },
    },
    Watch: {
      description: "Video agent: follow the draft's render; end the session when it completed or failed",
      input: videoAgentRef,
      output: z.object({ done: z.boolean() }),
      deployment: { access: [...AGENT_ITEMS], memorySize: 512, timeoutSeconds: 60 },
    },
  },
  record: {
    // A run stopped or superseded by a newer one has no record to work on.
    get: async (ref) => {
      const session = await getSession(ref.workspace_id, ref.session_id, true);
      return session?.run_id === ref.run_id && session.run_state !== RUN_STATES.stopped ? session : undefined;
    },
    outcome: (session) =>
      session.run_state !== RUN_STATES.ended
        ? JOB_OUTCOME.running
        : session.status === SESSION_STATUS.completed
          ? JOB_OUTCOME.succeeded
          : session.status === SESSION_STATUS.failed
            ? JOB_OUTCOME.failed
            : // Ended waiting for input (chat mode): nothing to settle or announce.
              JOB_OUTCOME.running,
    fail: (session, failure) =>
      updateRun(session, session.run_id, {
        status: SESSION_STATUS.failed,
        run_state: RUN_STATES.ended,
        failure_code: failure.code,
        failure_message: failure.message,
        completed_at: Math.floor(Date.now() / 1000),
        messages: withMessages(
          session,
          agentMessage(MESSAGE_ROLES.agent, MESSAGE_TYPES.error, `${failure.message} (${failure.code})`),
        ),
      }),
  },
  wording: {
    timeout: (step) => ({
      code: VIDEO_AGENT_FAILURE.timeout,
      message: `The ${step} step took longer than allowed and was stopped. Send a message to try again.`,
    }),
    fault: (step) => ({
      code: VIDEO_AGENT_FAILURE.internalError,
      message: `The ${step} step failed unexpectedly. Send a message to try again; if it keeps failing, report the session id.`,
    }),
    notStarted: {
      code: VIDEO_AGENT_FAILURE.internalError,
      message: 'The video agent could not be started. Nothing was charged; send the request again.',
    },
  },
  events: {
    entityId: (session) => session.session_id,
    runId: (session) => session.run_id,
    success: { type: 'video_agent.success', data: agentEventData },
    failure: { type: 'video_agent.fail', data: agentEventData },
    callback: (session) =>
      session.callback_url ? { url: session.callback_url, id: session.callback_id } : undefined,
  },
  // A run that completed or failed: the next queued follow-up starts.
  release: startNextQueued,
  failureAccess: [GRANTS.jobMedia, GRANTS.sendBatchItems],
  concurrencyLimited: true,
});
