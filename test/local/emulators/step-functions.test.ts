import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  ExecutionDoesNotExist,
  InvalidDefinition,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  SFNClient,
  StartExecutionCommand,
  StateMachineAlreadyExists,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type StepFunctionsEmulator,
  startStepFunctionsEmulator,
  type TaskFunction,
} from '../../../lib/local/emulators/index.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const lambdaArn = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;

class TransientError extends Error {
  override name = 'TransientError';
}
class PermanentError extends Error {
  override name = 'PermanentError';
}

/** A job lifecycle shaped like the product's: prepare (retried), route, wait, render, or fail with detail. */
const jobDefinition = {
  StartAt: 'Prepare',
  States: {
    Prepare: {
      Type: 'Task',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a definition substitution placeholder, not a template.
      Resource: '${PrepareFunctionArn}',
      Retry: [{ ErrorEquals: ['TransientError'], IntervalSeconds: 5, MaxAttempts: 3, BackoffRate: 2 }],
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'RecordFailure' }],
      Next: 'Route',
    },
    Route: {
      Type: 'Choice',
      // As on AWS, a Choice on a missing path is a runtime error: test presence first.
      Choices: [
        {
          And: [
            { Variable: '$.mode', IsPresent: true },
            { Variable: '$.mode', StringEquals: 'delayed' },
          ],
          Next: 'Delay',
        },
      ],
      Default: 'Render',
    },
    Delay: { Type: 'Wait', Seconds: 10, Next: 'DelayFromInput' },
    DelayFromInput: { Type: 'Wait', SecondsPath: '$.delaySeconds', Next: 'Render' },
    Render: { Type: 'Task', Resource: lambdaArn('render'), ResultPath: '$.render', End: true },
    RecordFailure: { Type: 'Task', Resource: lambdaArn('record-failure'), Next: 'JobFailed' },
    JobFailed: { Type: 'Fail', Error: 'JobFailed', Cause: 'The job could not be prepared.' },
  },
};

describe('Step Functions emulator', () => {
  let emulator: StepFunctionsEmulator;
  let sfn: SFNClient;
  const calls: { resource: string; stateName: string; input: unknown }[] = [];
  const taskBehaviour = new Map<string, TaskFunction>();
  let jobStateMachineArn: string;

  beforeAll(async () => {
    emulator = await startStepFunctionsEmulator({
      timeScale: 0.001,
      definitionSubstitutions: { PrepareFunctionArn: lambdaArn('prepare') },
      resolveTask: (resource, stateName) => async (input) => {
        calls.push({ resource, stateName, input });
        const behaviour = taskBehaviour.get(resource);
        if (!behaviour) throw new Error(`no local function for ${resource}`);
        return behaviour(input);
      },
    });
    sfn = new SFNClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
    const created = await sfn.send(
      new CreateStateMachineCommand({
        name: 'video-job',
        definition: JSON.stringify(jobDefinition),
        roleArn: 'arn:aws:iam::000000000000:role/sfn',
      }),
    );
    jobStateMachineArn = created.stateMachineArn ?? '';
  });
  afterEach(() => {
    calls.length = 0;
    taskBehaviour.clear();
  });
  afterAll(async () => {
    sfn.destroy();
    await emulator.stop();
  });

  async function runToEnd(input: object, stateMachineArn = jobStateMachineArn) {
    const started = await sfn.send(
      new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }),
    );
    await emulator.waitForExecution(started.executionArn ?? '', { timeoutMs: 5000 });
    return sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
  }

  it('applies definition substitutions and reports the state machine', async () => {
    expect(jobStateMachineArn).toBe('arn:aws:states:us-east-1:000000000000:stateMachine:video-job');
    const described = await sfn.send(
      new DescribeStateMachineCommand({ stateMachineArn: jobStateMachineArn }),
    );
    expect(described.status).toBe('ACTIVE');
    expect(described.definition).toContain(lambdaArn('prepare'));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a definition substitution placeholder, not a template.
    expect(described.definition).not.toContain('${PrepareFunctionArn}');
    const listed = await sfn.send(new ListStateMachinesCommand({}));
    expect(listed.stateMachines?.map((machine) => machine.name)).toContain('video-job');
  });

  it('runs Task states in process and reports the output', async () => {
    taskBehaviour.set(lambdaArn('prepare'), async (input) => ({ ...(input as object), prepared: true }));
    taskBehaviour.set(lambdaArn('render'), async () => ({ url: 's3://media/out.mp4' }));

    const execution = await runToEnd({ videoId: 'v_1' });

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output ?? '')).toEqual({
      videoId: 'v_1',
      prepared: true,
      render: { url: 's3://media/out.mp4' },
    });
    expect(JSON.parse(execution.input ?? '')).toEqual({ videoId: 'v_1' });
    expect(execution.stopDate?.getTime()).toBeGreaterThanOrEqual(execution.startDate?.getTime() ?? 0);
    expect(calls.map((call) => call.stateName)).toEqual(['Prepare', 'Render']);
    expect(calls[0]?.resource).toBe(lambdaArn('prepare'));
  });

  it('retries a task that fails twice, then succeeds', async () => {
    let attempts = 0;
    taskBehaviour.set(lambdaArn('prepare'), async (input) => {
      attempts += 1;
      if (attempts <= 2) throw new TransientError(`attempt ${attempts} failed`);
      return input;
    });
    taskBehaviour.set(lambdaArn('render'), async () => 'rendered');

    const execution = await runToEnd({ videoId: 'v_2' });

    expect(execution.status).toBe('SUCCEEDED');
    expect(attempts).toBe(3);
  });

  it('catches a failure into a failure-recording state, and the Fail state fails the execution', async () => {
    taskBehaviour.set(lambdaArn('prepare'), async () => {
      throw new PermanentError('voice v_9 does not exist');
    });
    taskBehaviour.set(lambdaArn('record-failure'), async (input) => input);

    const execution = await runToEnd({ videoId: 'v_3' });

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('JobFailed');
    expect(execution.cause).toBe('The job could not be prepared.');
    const recorded = calls.find((call) => call.stateName === 'RecordFailure')?.input as {
      failure: { Error: string; Cause: string };
    };
    expect(recorded.failure.Error).toBe('PermanentError');
    // Cause has the shape of a Lambda error, so code written for AWS can parse it.
    expect(JSON.parse(recorded.failure.Cause)).toMatchObject({
      errorType: 'PermanentError',
      errorMessage: 'voice v_9 does not exist',
    });
  });

  it('reports error and cause of an uncaught task failure', async () => {
    const definition = {
      StartAt: 'Only',
      States: { Only: { Type: 'Task', Resource: lambdaArn('explode'), End: true } },
    };
    const arn = await emulator.putStateMachine({ name: 'uncaught', definition });
    taskBehaviour.set(lambdaArn('explode'), async () => {
      throw new RangeError('frame rate out of range');
    });

    const execution = await runToEnd({}, arn);

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('RangeError');
    expect(JSON.parse(execution.cause ?? '')).toMatchObject({ errorMessage: 'frame rate out of range' });
  });

  it('scales Wait states (Seconds and SecondsPath) by timeScale', async () => {
    taskBehaviour.set(lambdaArn('prepare'), async (input) => input);
    taskBehaviour.set(lambdaArn('render'), async () => 'rendered');

    // Unscaled, this execution waits 10 s + 30 s; runToEnd gives up after 5 s.
    const execution = await runToEnd({ mode: 'delayed', delaySeconds: 30 });

    expect(execution.status).toBe('SUCCEEDED');
    expect(calls.map((call) => call.stateName)).toEqual(['Prepare', 'Render']);
  });

  it('supports the lambda:invoke integration and tasks inside Map iterations', async () => {
    const definition = {
      StartAt: 'EachScene',
      States: {
        EachScene: {
          Type: 'Map',
          ItemsPath: '$.scenes',
          Iterator: {
            StartAt: 'RenderScene',
            States: {
              RenderScene: {
                Type: 'Task',
                Resource: 'arn:aws:states:::lambda:invoke',
                Parameters: {
                  FunctionName: lambdaArn('render-scene'),
                  Payload: { 'scene.$': '$', 'executionId.$': '$$.Execution.Id' },
                },
                ResultSelector: {
                  'frames.$': '$.Payload.frames',
                  'executionId.$': '$.Payload.executionId',
                  'status.$': '$.StatusCode',
                },
                End: true,
              },
            },
          },
          End: true,
        },
      },
    };
    const arn = await emulator.putStateMachine({ name: 'scenes', definition });
    taskBehaviour.set(lambdaArn('render-scene'), async (input) => {
      const { scene, executionId } = input as { scene: { length: number }; executionId: string };
      return { frames: scene.length * 30, executionId };
    });

    const execution = await runToEnd({ scenes: [{ length: 1 }, { length: 2 }] }, arn);

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output ?? '')).toEqual([
      { frames: 30, executionId: execution.executionArn, status: 200 },
      { frames: 60, executionId: execution.executionArn, status: 200 },
    ]);
  });

  it('stops a running execution as ABORTED and lists executions by status', async () => {
    const definition = {
      StartAt: 'Hang',
      States: { Hang: { Type: 'Task', Resource: lambdaArn('hang'), End: true } },
    };
    const arn = await emulator.putStateMachine({ name: 'hanging', definition });
    taskBehaviour.set(lambdaArn('hang'), () => new Promise(() => {}));

    const started = await sfn.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'hang-1' }));
    const running = await sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
    expect(running.status).toBe('RUNNING');
    expect(emulator.listRunningExecutions()).toEqual([
      expect.objectContaining({ executionArn: started.executionArn, interrupted: false }),
    ]);

    await sfn.send(
      new StopExecutionCommand({ executionArn: started.executionArn, error: 'Cancelled', cause: 'user' }),
    );

    const stopped = await sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
    expect(stopped).toMatchObject({ status: 'ABORTED', error: 'Cancelled', cause: 'user' });
    const aborted = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: arn, statusFilter: 'ABORTED' }),
    );
    expect(aborted.executions?.map((execution) => execution.name)).toEqual(['hang-1']);
    const succeeded = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: arn, statusFilter: 'SUCCEEDED' }),
    );
    expect(succeeded.executions).toEqual([]);
    expect(emulator.listRunningExecutions()).toEqual([]);
  });

  it('answers with typed errors', async () => {
    await expect(
      sfn.send(
        new DescribeExecutionCommand({
          executionArn: 'arn:aws:states:us-east-1:000000000000:execution:video-job:nope',
        }),
      ),
    ).rejects.toBeInstanceOf(ExecutionDoesNotExist);
    await expect(
      sfn.send(
        new CreateStateMachineCommand({
          name: 'video-job',
          definition: JSON.stringify({ StartAt: 'P', States: { P: { Type: 'Pass', End: true } } }),
          roleArn: 'arn:aws:iam::000000000000:role/sfn',
        }),
      ),
    ).rejects.toBeInstanceOf(StateMachineAlreadyExists);
    const invalidDefinitions = [
      '{ not json',
      JSON.stringify({ StartAt: 'Missing', States: {} }),
      JSON.stringify({ QueryLanguage: 'JSONata', StartAt: 'P', States: { P: { Type: 'Pass', End: true } } }),
      JSON.stringify({
        StartAt: 'Callback',
        States: {
          Callback: {
            Type: 'Task',
            Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
            End: true,
          },
        },
      }),
    ];
    for (const definition of invalidDefinitions) {
      await expect(
        sfn.send(
          new CreateStateMachineCommand({ name: 'broken', definition, roleArn: 'arn:aws:iam::0:role/r' }),
        ),
      ).rejects.toBeInstanceOf(InvalidDefinition);
    }
  });
});

describe('Step Functions emulator journal', () => {
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'local-sfn-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('finds executions that were RUNNING before a restart and fails them with States.Runtime', async () => {
    const dataFile = join(directory, 'journal.json');
    const definition = {
      StartAt: 'Work',
      States: { Work: { Type: 'Task', Resource: lambdaArn('work'), End: true } },
    };
    const first = await startStepFunctionsEmulator({
      dataFile,
      resolveTask: (resource) => async (input) => {
        if (resource === lambdaArn('work') && (input as { hang?: boolean }).hang)
          return new Promise(() => {});
        return { done: true };
      },
    });
    const firstClient = new SFNClient({ endpoint: first.endpoint, region: 'us-east-1', credentials });
    const arn = await first.putStateMachine({ name: 'work', definition });
    const finished = await firstClient.send(new StartExecutionCommand({ stateMachineArn: arn, input: '{}' }));
    await first.waitForExecution(finished.executionArn ?? '');
    const inFlight = await firstClient.send(
      new StartExecutionCommand({ stateMachineArn: arn, name: 'in-flight', input: '{"hang":true}' }),
    );
    firstClient.destroy();
    await first.stop();

    const second = await startStepFunctionsEmulator({
      dataFile,
      resolveTask: () => async () => ({}),
    });
    const secondClient = new SFNClient({ endpoint: second.endpoint, region: 'us-east-1', credentials });
    try {
      expect(second.listRunningExecutions()).toEqual([
        expect.objectContaining({
          executionArn: inFlight.executionArn,
          name: 'in-flight',
          interrupted: true,
        }),
      ]);
      const before = await secondClient.send(
        new DescribeExecutionCommand({ executionArn: inFlight.executionArn }),
      );
      expect(before.status).toBe('RUNNING');

      const failed = await second.failInterruptedExecutions();

      expect(failed.map((execution) => execution.executionArn)).toEqual([inFlight.executionArn]);
      const after = await secondClient.send(
        new DescribeExecutionCommand({ executionArn: inFlight.executionArn }),
      );
      expect(after).toMatchObject({
        status: 'FAILED',
        error: 'States.Runtime',
        cause: 'local stack restarted',
      });
      const earlier = await secondClient.send(
        new DescribeExecutionCommand({ executionArn: finished.executionArn }),
      );
      expect(earlier).toMatchObject({ status: 'SUCCEEDED', output: '{"done":true}' });
      expect(second.listRunningExecutions()).toEqual([]);
      // The state machine survived too, and runs again.
      const again = await secondClient.send(new StartExecutionCommand({ stateMachineArn: arn }));
      expect((await second.waitForExecution(again.executionArn ?? '')).status).toBe('SUCCEEDED');
    } finally {
      secondClient.destroy();
      await second.stop();
    }
  });
});
