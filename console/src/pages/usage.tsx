/**
 * Usage: credits charged per day, one series per job type (uPlot, loaded with this page only), the
 * credit balance, jobs running per type, and the rate-limit headroom of each class, all from
 * GET /v3/usage.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { getData } from '../api.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { useResource } from '../components/use-resource.ts';

interface Counts {
  credits_charged: number;
  jobs_settled: number;
}

interface Period extends Counts {
  from: string;
  to: string;
  by_job_type: Record<string, Counts>;
}

interface RateLimit {
  rate_class: string;
  limit: number;
  window_seconds: number;
  used: number;
  remaining: number;
}

interface JobLoad {
  job_type: string;
  running: number;
  /** Of `running`, those on Enterprise burst slots (charged 1.5×). */
  burst_running: number;
  queued: number;
  concurrency_limit: number;
  /** Burst slots above the limit; 0 when burst is off. */
  burst_limit: number;
  credits_reserved: number;
}

export interface Usage {
  plan: string;
  credits: {
    included: number;
    used: number;
    reserved: number;
    remaining: number;
    usage_limit: number | null;
  };
  window: { from: string; to: string; granularity: string };
  usage: { periods: Period[]; totals: Counts & { by_job_type: Record<string, Counts> } };
  rate_limits: RateLimit[];
  jobs: JobLoad[];
}

/** Distinguishable on white and for common colour-vision deficiencies (Okabe–Ito). */
const SERIES_COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000'];

const label = (name: string) => name.replaceAll('_', ' ');

function CreditsChart({ usage }: { usage: Usage }) {
  const container = useRef<HTMLDivElement>(null);
  const jobTypes = Object.keys(usage.usage.totals.by_job_type);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const periods = usage.usage.periods;
    const days = periods.map((period) => Date.parse(`${period.from}T00:00:00Z`) / 1000);
    const series = jobTypes.map((type) =>
      periods.map((period) => period.by_job_type[type]?.credits_charged ?? 0),
    );
    const chart = new uPlot(
      {
        width: Math.max(320, Math.min(element.clientWidth || 900, 960)),
        height: 280,
        scales: { x: { time: true } },
        axes: [{}, { label: 'credits' }],
        series: [
          { label: 'day' },
          ...jobTypes.map((type, index) => ({
            label: label(type),
            stroke: SERIES_COLOURS[index % SERIES_COLOURS.length],
            width: 2,
            points: { show: true },
          })),
        ],
      },
      [days, ...series],
      element,
    );
    return () => chart.destroy();
  }, [usage, jobTypes.join()]);
  return (
    <figure class="chart">
      <div ref={container} role="img" aria-label="Credits charged per day, by job type" />
      <figcaption class="muted">
        Credits charged per day from {usage.window.from} to {usage.window.to}
        {jobTypes.length === 0 ? ': none yet.' : '.'}
      </figcaption>
    </figure>
  );
}

function Totals({ usage }: { usage: Usage }) {
  const rows = Object.entries(usage.usage.totals.by_job_type);
  return (
    <table aria-label="Credits by job type">
      <thead>
        <tr>
          <th scope="col">Job type</th>
          <th scope="col">Credits charged</th>
          <th scope="col">Jobs settled</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([type, counts]) => (
          <tr key={type} data-job-type={type}>
            <td>{label(type)}</td>
            <td data-credits>{counts.credits_charged}</td>
            <td>{counts.jobs_settled}</td>
          </tr>
        ))}
        <tr>
          <th scope="row">All</th>
          <td data-total-credits>{usage.usage.totals.credits_charged}</td>
          <td>{usage.usage.totals.jobs_settled}</td>
        </tr>
      </tbody>
    </table>
  );
}

function RateLimits({ limits }: { limits: RateLimit[] }) {
  return (
    <table aria-label="Rate limits">
      <thead>
        <tr>
          <th scope="col">Class</th>
          <th scope="col">Headroom</th>
          <th scope="col">Remaining</th>
          <th scope="col">Window</th>
        </tr>
      </thead>
      <tbody>
        {limits.map((limit) => (
          <tr key={limit.rate_class} data-rate-class={limit.rate_class}>
            <td>{limit.rate_class}</td>
            <td>
              <meter
                min={0}
                max={limit.limit}
                value={limit.remaining}
                low={limit.limit * 0.2}
                optimum={limit.limit}
                aria-label={`${limit.rate_class} requests remaining`}
              />
            </td>
            <td data-remaining>
              {limit.remaining} of {limit.limit}
            </td>
            <td>{limit.window_seconds} s</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function UsagePage() {
  const usage = useResource(() => getData<Usage>('/v3/usage'), []);
  if (!usage.data) return usage.error ? <ErrorMessage error={usage.error} /> : <Loading what="usage" />;
  const { credits, plan, jobs } = usage.data;
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <p>
        Plan <strong>{plan}</strong>: <strong data-credits-remaining>{credits.remaining}</strong> credits
        remaining of {credits.included} ({credits.used} used, {credits.reserved} reserved for jobs in flight).
      </p>
      <CreditsChart usage={usage.data} />
      <h2>By job type</h2>
      <Totals usage={usage.data} />
      <h2>Rate-limit headroom</h2>
      <RateLimits limits={usage.data.rate_limits} />
      <h2>Jobs in flight</h2>
      <table aria-label="Jobs in flight">
        <thead>
          <tr>
            <th scope="col">Job type</th>
            <th scope="col">Running</th>
            <th scope="col">Queued</th>
            <th scope="col">Concurrency limit</th>
            <th scope="col">Burst (running of slots)</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => (
            <tr key={job.job_type}>
              <td>{label(job.job_type)}</td>
              <td>{job.running}</td>
              <td>{job.queued}</td>
              <td>{job.concurrency_limit}</td>
              <td>{job.burst_limit > 0 ? `${job.burst_running} of ${job.burst_limit}` : 'off'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
