/**
 * Video agent sessions: one record per `POST /v3/video-agents`. A session holds the conversation
 * (`messages`), what the agent made or was given (`resources`: plans, scripts, uploaded files,
 * drafts), its plan, its drafts (videos of the normal video pipeline, newest last) and its current
 * run: each create or follow-up starts one run of the `video-agent` job (video-agent-job.ts).
 *
 * Statuses are the reference's: `thinking` (planning), `waiting_for_input` (chat mode: the plan
 * awaits the user's go-ahead or changes; also after a stop), `reviewing` (the plan is checked and its
 * scene material made), `generating` (a draft is rendering), `completed`, `failed`.
 *
 * Every write of a run is conditional on the run still being the session's current, running one:
 * a stopped or superseded run changes nothing.
 *
 * A follow-up sent while a run works is queued (`queued`, at most `MAX_QUEUED_FOLLOW_UPS`) with its own
 * run id, and started, in order, when the run before it ends (completed, failed or waiting for input);
 * a stop discards the queue. The queue is written only conditionally on the run the writer read and
 * on the queue's version (`queue_version`, counted up by every write of the queue and every new run),
 * and never together with `messages`, which the running steps write: a queued
 * message is shown after the stored ones (`shownMessages`) until its run starts and stores it.
 */
import { ConflictError, NotFoundError } from '../core/errors.js';
import { ID_PATTERN, newId, nowSeconds } from '../core/ids.js';
import { getItem, putNewItem, queryPage, type StoredItem, updateExistingItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import type { EditPlanItem } from './agent-edits.js';
import type { AgentPlan } from './agent-plan.js';

export const SESSION_STATUS = {
  thinking: 'thinking',
  waitingForInput: 'waiting_for_input',
  reviewing: 'reviewing',
  generating: 'generating',
  completed: 'completed',
  failed: 'failed',
} as const;
export type SessionStatus = (typeof SESSION_STATUS)[keyof typeof SESSION_STATUS];

/** Statuses in which a run is working (a follow-up must wait or stop it). */
export const WORKING_STATUSES: readonly SessionStatus[] = [
  SESSION_STATUS.thinking,
  SESSION_STATUS.reviewing,
  SESSION_STATUS.generating,
];

export const AGENT_MODES = { generate: 'generate', chat: 'chat' } as const;
export type AgentMode = (typeof AGENT_MODES)[keyof typeof AGENT_MODES];

export const RUN_KINDS = {
  /** Plan (again, with the conversation so far); render unless chat mode waits for the go-ahead. */
  plan: 'plan',
  /** Render the plan as it stands (chat mode's go-ahead). */
  render: 'render',
  /** A draft made from an edit plan is rendering: follow it. */
  edit: 'edit',
} as const;
export type RunKind = (typeof RUN_KINDS)[keyof typeof RUN_KINDS];

export const RUN_STATES = { running: 'running', ended: 'ended', stopped: 'stopped' } as const;
export type RunState = (typeof RUN_STATES)[keyof typeof RUN_STATES];

/** The current run, as top-level fields of the session (so that writes can be conditional on them). */
export interface AgentRun {
  run_id: string;
  run_kind: RunKind;
  run_state: RunState;
}

export const MESSAGE_ROLES = { user: 'user', agent: 'agent' } as const;
export const MESSAGE_TYPES = { text: 'text', resource: 'resource', error: 'error' } as const;

export interface AgentMessage {
  role: (typeof MESSAGE_ROLES)[keyof typeof MESSAGE_ROLES];
  type: (typeof MESSAGE_TYPES)[keyof typeof MESSAGE_TYPES];
  content: string;
  resource_ids: string[];
  created_at: number;
}

export const RESOURCE_KINDS = {
  plan: 'plan',
  script: 'script',
  file: 'file',
  draft: 'draft',
} as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[keyof typeof RESOURCE_KINDS];

export interface AgentResource {
  resource_id: string;
  resource_type: ResourceKind;
  /** `user` (sent with a request) or `agent` (made by the agent). */
  source_type: 'user' | 'agent';
  /** The file in the media bucket (a plan or script as JSON or text, an upload); null for a draft. */
  key: string | null;
  /** A draft's video. */
  video_id: string | null;
  metadata: Record<string, unknown>;
  created_at: number;
}

/** A file sent to the session: media for the scenes, or text to plan from. */
export interface AgentFile {
  resource_id: string;
  kind: 'image' | 'video' | 'document' | 'text';
  key: string;
  /** The asset the file came from (`{type: "asset_id"}`), to name it in messages. */
  asset_id?: string;
}

export interface AgentOptions {
  style_id: string;
  orientation: 'landscape' | 'portrait';
  avatar_id: string | null;
  voice_id: string | null;
  brand_kit_id: string | null;
}

/** What a follow-up asks for, besides its files (stored when it was received). */
export interface FollowUpChoices {
  message?: string | undefined;
  edit_plan?: EditPlanItem[] | undefined;
  avatar_id?: string | undefined;
  voice_id?: string | undefined;
  brand_kit_id?: string | undefined;
}

/** A follow-up received, its files stored: started at once, or queued behind the working run. */
export interface FollowUp {
  run_id: string;
  choices: FollowUpChoices;
  files: AgentFile[];
  resources: AgentResource[];
  /** The user's messages as the conversation shows them (the text, the files attached). */
  messages: AgentMessage[];
}

export interface AgentSession extends AgentRun {
  session_id: string;
  workspace_id: string;
  mode: AgentMode;
  prompt: string;
  status: SessionStatus;
  progress: number;
  title: string | null;
  options: AgentOptions;
  /** Not listed by `GET /v3/video-agents` (still readable by id). */
  incognito_mode: boolean;
  callback_url: string | null;
  callback_id: string | null;
  messages: AgentMessage[];
  resources: AgentResource[];
  files: AgentFile[];
  plan: AgentPlan | null;
  /** Draft video ids, oldest first; the last is the session's `video_id`. */
  drafts: string[];
  /** The planner that wrote the plan (`local`, or the text engine and model). */
  engines: Record<string, string>;
  failure_code: string | null;
  failure_message: string | null;
  /** Follow-ups waiting for the working run to end, oldest first. */
  queued: FollowUp[];
  /** Counted up by every write of `queued` and every new run: the queue's writes are conditional on it. */
  queue_version: number;
  created_at: number;
  completed_at: number | null;
}

type SessionItem = AgentSession & { pk: string; sk: string };

/** Most messages a session keeps (the oldest go first); the plan and drafts stay in `resources`. */
export const MAX_SESSION_MESSAGES = 100;

/** Most follow-ups a session queues behind its working run. */
export const MAX_QUEUED_FOLLOW_UPS = 5;

export const sessionKey = (workspaceId: string, sessionId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.videoAgentSession, sessionId);

export const sessionMediaKeys = {
  prefix: (session: Pick<AgentSession, 'workspace_id' | 'session_id'>) =>
    `workspaces/${session.workspace_id}/video-agents/${session.session_id}/`,
  file: (session: Pick<AgentSession, 'workspace_id' | 'session_id'>, name: string) =>
    `workspaces/${session.workspace_id}/video-agents/${session.session_id}/${name}`,
};

export const sessionNotFound = (sessionId: string) =>
  new NotFoundError(`Video agent session ${sessionId} not found.`, 'not_found', 'session_id');

export const currentVideoId = (session: Pick<AgentSession, 'drafts'>) => session.drafts.at(-1) ?? null;

export function agentMessage(
  role: AgentMessage['role'],
  type: AgentMessage['type'],
  content: string,
  resourceIds: string[] = [],
): AgentMessage {
  return { role, type, content, resource_ids: resourceIds, created_at: nowSeconds() };
}

export function newRun(kind: RunKind, runId: string = newId()): AgentRun {
  return { run_id: runId, run_kind: kind, run_state: RUN_STATES.running };
}

export const isWorking = (session: Pick<AgentSession, 'status' | 'run_state'>) =>
  session.run_state === RUN_STATES.running && WORKING_STATUSES.includes(session.status);

/** The conversation as a read shows it: the stored messages, then those of the queued follow-ups. */
export const shownMessages = (session: Pick<AgentSession, 'messages' | 'queued'>) => [
  ...session.messages,
  ...session.queued.flatMap((followUp) => followUp.messages),
];

function toSession(item: SessionItem): AgentSession {
  const { pk: _pk, sk: _sk, ...session } = item;
  return session;
}

export async function putNewSession(session: AgentSession): Promise<void> {
  const written = await putNewItem({ ...sessionKey(session.workspace_id, session.session_id), ...session });
  if (!written) throw new Error(`Video agent session ${session.session_id} exists already`);
}

export async function getSession(
  workspaceId: string,
  sessionId: string,
  consistent = false,
): Promise<AgentSession | undefined> {
  if (!ID_PATTERN.test(sessionId)) return undefined;
  const item = await getItem<SessionItem>(sessionKey(workspaceId, sessionId), consistent);
  if (!item) return undefined;
  if (item.queue_version === undefined) {
    // Stored before follow-ups were queued: the queue's writes are conditional on its version, so it
    // must exist (nothing can have queued on such a session: every queue write would have failed).
    const migrated = await updateExistingItem<SessionItem>(
      { pk: item.pk, sk: item.sk },
      { queued: [], queue_version: 0 },
    );
    return migrated ? toSession(migrated) : undefined;
  }
  return toSession(item);
}

/** A session of the workspace (another workspace's id is not found). */
export async function requireSession(workspaceId: string, sessionId: string): Promise<AgentSession> {
  const session = await getSession(workspaceId, sessionId, true);
  if (!session) throw sessionNotFound(sessionId);
  return session;
}

/** The workspace's sessions, newest first, without incognito ones. */
export async function listSessions(workspaceId: string, limit: number, token?: string) {
  const page = await queryPage<SessionItem>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${RESOURCE_TYPES.videoAgentSession}#`,
    limit,
    token,
    binding: `${workspaceId}:VideoAgentList`,
    keep: (item: StoredItem) => item.incognito_mode !== true,
  });
  return { items: page.items.map(toSession), nextToken: page.nextToken };
}

/** Keeps the newest `MAX_SESSION_MESSAGES`. */
export const withMessages = (session: Pick<AgentSession, 'messages'>, ...messages: AgentMessage[]) =>
  [...session.messages, ...messages].slice(-MAX_SESSION_MESSAGES);

/**
 * Writes fields of the session while `run` is its current, running run; the session after, else
 * undefined (the run was stopped or superseded, or the session is gone).
 */
export async function updateRun(
  session: Pick<AgentSession, 'workspace_id' | 'session_id'>,
  runId: string,
  fields: Partial<AgentSession>,
): Promise<AgentSession | undefined> {
  const item = await updateExistingItem<SessionItem>(
    sessionKey(session.workspace_id, session.session_id),
    fields,
    [],
    { run_id: runId, run_state: RUN_STATES.running },
  );
  return item ? toSession(item) : undefined;
}

/**
 * Starts a new run on a session that is not working (its current run ended or stopped): `fields`
 * and the run are written only if the session is still as `session` read it (same run, same status,
 * same queue).
 * @throws ConflictError 409 `resource_not_ready` when another request started work meanwhile
 */
export async function startRun(
  session: AgentSession,
  run: AgentRun,
  fields: Partial<AgentSession>,
): Promise<AgentSession> {
  const item = await updateExistingItem<SessionItem>(
    sessionKey(session.workspace_id, session.session_id),
    { ...fields, ...run, queue_version: session.queue_version + 1 },
    [],
    {
      run_id: session.run_id,
      run_state: session.run_state,
      status: session.status,
      queue_version: session.queue_version,
    },
  );
  if (!item) throw sessionBusy();
  return toSession(item);
}

/**
 * Queues a follow-up behind the session's working run, if that run is still the one `session` read
 * and the queue is still as read; the session after, else undefined (read it again and decide anew).
 */
export async function queueFollowUp(
  session: AgentSession,
  followUp: FollowUp,
): Promise<AgentSession | undefined> {
  if (session.queued.length >= MAX_QUEUED_FOLLOW_UPS) {
    throw new ConflictError(
      `The session already has ${MAX_QUEUED_FOLLOW_UPS} follow-ups queued behind its working run (the most it keeps). Wait until one has started (GET /v3/video-agents/{session_id}), or stop the session with POST /v3/video-agents/{session_id}/stop, which discards the queue.`,
      'resource_not_ready',
      { param: 'session_id' },
    );
  }
  const item = await updateExistingItem<SessionItem>(
    sessionKey(session.workspace_id, session.session_id),
    { queued: [...session.queued, followUp], queue_version: session.queue_version + 1 },
    [],
    { run_id: session.run_id, run_state: RUN_STATES.running, queue_version: session.queue_version },
  );
  return item ? toSession(item) : undefined;
}

export const sessionBusy = () =>
  new ConflictError(
    'The session is working on a run (thinking, reviewing or generating). Wait until it is completed, failed or waiting for input, or stop it with POST /v3/video-agents/{session_id}/stop.',
    'resource_not_ready',
    { param: 'session_id' },
  );

const discardedNote = (queued: readonly FollowUp[]) =>
  queued.length === 0
    ? ''
    : ` I discarded the ${queued.length === 1 ? 'follow-up' : `${queued.length} follow-ups`} you sent while I worked (${queued
        .map((followUp) => `run ${followUp.run_id}`)
        .join(
          ', ',
        )}): send ${queued.length === 1 ? 'it' : 'them'} again if you still want ${queued.length === 1 ? 'it' : 'them'}.`;

/**
 * Stops the current run (the session keeps its plan, resources and drafts): the run is marked
 * `stopped`, so its steps change nothing more, the queued follow-ups are discarded (the conversation
 * says which), and the session waits for input. A session with neither a working run nor a queue is
 * left as it is. Returns the session after.
 */
export async function stopRun(session: AgentSession): Promise<AgentSession> {
  const working = isWorking(session);
  if (!working && session.queued.length === 0) return session;
  const item = await updateExistingItem<SessionItem>(
    sessionKey(session.workspace_id, session.session_id),
    {
      ...(working ? { run_state: RUN_STATES.stopped, status: SESSION_STATUS.waitingForInput } : {}),
      queued: [],
      queue_version: session.queue_version + 1,
      // The discarded follow-ups' messages stay in the conversation, before the note that says so.
      messages: withMessages(
        { messages: shownMessages(session) },
        agentMessage(
          MESSAGE_ROLES.agent,
          MESSAGE_TYPES.text,
          working
            ? `Stopped at your request. I kept the plan${session.drafts.length > 0 ? ' and the drafts' : ''}; a draft already handed to the renderer finishes on its own.${discardedNote(session.queued)} Send a message to continue.`
            : `Stopped at your request.${discardedNote(session.queued)}`,
        ),
      ),
    },
    [],
    { run_id: session.run_id, run_state: session.run_state, queue_version: session.queue_version },
  );
  if (item) return toSession(item);
  // A step, a queue or another stop wrote meanwhile: stop the session as it is now.
  const now = await getSession(session.workspace_id, session.session_id, true);
  return now ? stopRun(now) : session;
}
