/**
 * How a job's failure crosses Step Functions: a step's `JobFailure` (any engine error) reaches the
 * failure step with its code and message; deadlines and faults of the service are worded by the job,
 * never shown raw.
 */
import { describe, expect, it } from 'vitest';
import { JobFailure, ServiceError } from '../../../lambdas/core/errors.js';
import { CompositionError } from '../../../lambdas/engines/composition/composition-engine.js';
import { SpeechEngineError } from '../../../lambdas/engines/speech/speech-engine.js';
import { type CaughtError, failureOf, taskHandler } from '../../../lambdas/jobs/job-steps.js';
import { voiceTrainingJob } from '../../../lambdas/model-audio/voice-training-job.js';
import { videoRenderJob } from '../../../lambdas/videos/video-render-job.js';
import { voiceCloneJob } from '../../../lambdas/voices/voice-clone-job.js';

/** What Step Functions' Catch records for an error a Lambda task threw (Lambda's `errorType` is the name). */
async function caughtFrom(error: Error): Promise<CaughtError> {
  const step = taskHandler('Step', { parse: (input: unknown) => input } as never, async () => {
    throw error;
  });
  try {
    await step({});
  } catch (thrown) {
    const { name, message } = thrown as Error;
    return { Error: name, Cause: JSON.stringify({ errorType: name, errorMessage: message, trace: [] }) };
  }
  throw new Error('the step did not fail');
}

describe('job failures across Step Functions', () => {
  it.each([
    ['a JobFailure', new JobFailure('voice_not_found', 'Voice x (scene_1) does not exist.')],
    ['a speech engine error', new SpeechEngineError('voice_not_found', 'Voice x (scene_1) does not exist.')],
  ])('carries the failure code and the message of %s through the Catch', async (_kind, error) => {
    const failure = failureOf(await caughtFrom(error), 'Prepare', videoRenderJob.wording);
    expect(failure).toEqual({ code: 'voice_not_found', message: 'Voice x (scene_1) does not exist.' });
  });

  it('keeps a multi-line engine message whole', async () => {
    const error = new CompositionError(
      'invalid_media',
      'The clip of scene_2 cannot be read:\nmoov atom not found',
    );
    expect(failureOf(await caughtFrom(error), 'Compose', videoRenderJob.wording)).toEqual({
      code: 'invalid_media',
      message: 'The clip of scene_2 cannot be read:\nmoov atom not found',
    });
  });

  it("words a deadline in each job's own terms", () => {
    for (const error of ['States.Timeout', 'Sandbox.Timedout']) {
      expect(failureOf({ Error: error }, 'Compose', videoRenderJob.wording).code).toBe('render_timeout');
      expect(failureOf({ Error: error }, 'Build', voiceCloneJob.wording).code).toBe('clone_timeout');
      expect(failureOf({ Error: error }, 'Train', voiceTrainingJob.wording).code).toBe('training_failed');
    }
    expect(failureOf({ Error: 'States.Timeout' }, 'Build', voiceCloneJob.wording).message).toContain(
      'the clone slot is free again',
    );
  });

  it('turns an unexpected error into internal_error naming the step, never the error text', async () => {
    for (const job of [videoRenderJob, voiceCloneJob, voiceTrainingJob]) {
      const failure = failureOf(
        await caughtFrom(new TypeError('secret detail at /var/task/x.js')),
        'Compose',
        job.wording,
      );
      expect(failure.code).toBe('internal_error');
      expect(failure.message).toContain('Compose');
      expect(failure.message).not.toContain('secret detail');
    }
  });

  it('does not trust a JobFailure name without a code in its message', () => {
    const forged = { Error: 'JobFailure', Cause: JSON.stringify({ errorMessage: 'no code here' }) };
    expect(failureOf(forged, 'Prepare', videoRenderJob.wording).code).toBe('internal_error');
    expect(
      failureOf({ Error: 'JobFailure', Cause: 'not json' }, 'Prepare', videoRenderJob.wording).code,
    ).toBe('internal_error');
  });

  it('is one error hierarchy: out of a request, an unmapped failure is 503 with Retry-After or a 500', () => {
    const unavailable = new SpeechEngineError('engine_unavailable', 'eSpeak cannot start');
    expect(unavailable).toBeInstanceOf(ServiceError);
    expect(unavailable).toMatchObject({ status: 503, code: 'engine_unavailable', expose: false });
    expect(unavailable.headers['Retry-After']).toBe('5');
    const failed = new CompositionError('invalid_media', 'x');
    expect(failed).toMatchObject({ status: 500, code: 'internal_error', failureCode: 'invalid_media' });
    expect(failed.expose).toBe(false);
  });
});
