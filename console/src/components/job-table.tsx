/** A table of one job type's jobs: title, status, live progress, the failure reason, when. */
import { FailureReason, JobProgress, type JobState, StatusBadge } from './status.tsx';

export interface JobRow extends JobState {
  id?: string;
  render_id?: string;
  session_id?: string;
  title?: string | null;
  created_at?: number | string | null;
}

export const jobId = (job: JobRow) => job.id ?? job.render_id ?? job.session_id ?? '';

function when(value: JobRow['created_at']): string {
  if (value === null || value === undefined) return '—';
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

export function JobTable({ jobs, caption }: { jobs: JobRow[]; caption: string }) {
  if (jobs.length === 0) return <p class="muted">No {caption.toLowerCase()} yet.</p>;
  return (
    <div class="table-scroll">
      <table aria-label={caption}>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => {
            const name = job.title || jobId(job);
            return (
              <tr key={jobId(job)} data-job-id={jobId(job)}>
                <td>{name}</td>
                <td>
                  <StatusBadge status={job.status} />
                  <JobProgress job={job} label={name} />
                  <FailureReason job={job} />
                </td>
                <td>{when(job.created_at)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
