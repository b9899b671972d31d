/** A job's state as the user sees it: a badge, a progress bar while it runs, the reason when it failed. */

const RUNNING = new Set([
  'pending',
  'queued',
  'processing',
  'running',
  'in_progress',
  'waiting',
  'pending_upload',
  // webhook deliveries
  'sending',
]);
const FAILED = new Set(['failed', 'error', 'canceled', 'cancelled', 'stopped', 'expired']);

export function isRunning(status: string): boolean {
  return RUNNING.has(status);
}

export function StatusBadge({ status }: { status: string }) {
  const tone = FAILED.has(status) ? 'bad' : RUNNING.has(status) ? 'busy' : 'good';
  return <span class={`badge badge-${tone}`}>{status.replaceAll('_', ' ')}</span>;
}

export interface JobState {
  status: string;
  progress?: number | null;
  failure_code?: string | null;
  failure_message?: string | null;
  error?: unknown;
}

/** Progress is 0–100 where the API reports it; without it the bar is indeterminate (still moving). */
export function JobProgress({ job, label }: { job: JobState; label: string }) {
  if (!isRunning(job.status)) return null;
  const value = typeof job.progress === 'number' ? Math.max(0, Math.min(100, job.progress)) : undefined;
  return (
    <progress
      class="job-progress"
      aria-label={`${label} progress`}
      max={100}
      {...(value === undefined ? {} : { value })}
    >
      {value === undefined ? 'working' : `${value}%`}
    </progress>
  );
}

function failureText(job: JobState): string | null {
  if (job.failure_message || job.failure_code)
    return [job.failure_code, job.failure_message].filter(Boolean).join(': ');
  if (typeof job.error === 'string') return job.error;
  if (job.error && typeof job.error === 'object') {
    const error = job.error as { code?: string; message?: string };
    return [error.code, error.message].filter(Boolean).join(': ') || null;
  }
  return null;
}

export function FailureReason({ job }: { job: JobState }) {
  if (!FAILED.has(job.status)) return null;
  return <p class="failure">{failureText(job) ?? 'The service gave no reason.'}</p>;
}
