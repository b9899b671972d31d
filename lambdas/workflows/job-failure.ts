/**
 * How a job workflow step says "this job cannot succeed": it throws a `JobFailure` with the job's
 * `failure_code` and a message for the user. Step Functions only keeps an error's name and message
 * (as `Error` and the `errorMessage` of `Cause`), so the code travels at the start of the message;
 * the workflow's Catch hands both to its failure step, which reads them back with `failureOf`.
 *
 * Any other error is a fault of the service (a crash, a timeout, an AWS error that outlived its
 * retries): the job fails with `internal_error` and a message naming the step, never the raw error.
 */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';

  constructor(
    readonly failureCode: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${failureCode}: ${reason}`, options);
  }
}

/** What a Catch puts at its `ResultPath`: the state's `Error` and `Cause`. */
export interface CaughtError {
  Error?: string;
  Cause?: string;
}

export interface JobFailureDetails {
  code: string;
  message: string;
}

const FAILURE_MESSAGE = /^([a-z][a-z0-9_]*): ([\s\S]+)$/;

/** The job's failure from a caught error of step `step`. */
export function failureOf(caught: CaughtError | undefined, step: string): JobFailureDetails {
  // The state's own deadline, or the function's (Lambda reports its timeout as `Sandbox.Timedout`).
  if (caught?.Error === 'States.Timeout' || caught?.Error === 'Sandbox.Timedout') {
    return { code: 'render_timeout', message: `The ${step} step took longer than allowed and was stopped.` };
  }
  if (caught?.Error === 'JobFailure' && caught.Cause) {
    let errorMessage: unknown;
    try {
      errorMessage = (JSON.parse(caught.Cause) as { errorMessage?: unknown }).errorMessage;
    } catch {
      errorMessage = undefined;
    }
    const match = typeof errorMessage === 'string' ? FAILURE_MESSAGE.exec(errorMessage) : null;
    if (match) return { code: match[1] as string, message: match[2] as string };
  }
  return {
    code: 'internal_error',
    message: `The ${step} step failed unexpectedly (${caught?.Error ?? 'unknown error'}); nothing was charged. Try again; if it keeps failing, report the video id.`,
  };
}
