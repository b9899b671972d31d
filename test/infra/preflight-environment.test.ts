/**
 * The deploy machine's preflight (lib/preflight/environment.ts) with a fake command runner: what a
 * deployer reads for a ready machine, a missing Docker, a Docker without buildx, an old Node, and
 * AWS answers that do or do not tell whether credentials work.
 */
import { describe, expect, it } from 'vitest';
import {
  type CommandResult,
  type CommandRunner,
  checkEnvironment,
  checkNode,
  type EnvironmentCheck,
  formatEnvironmentReport,
  runCommand,
} from '../../lib/preflight/environment.js';

const done = (stdout: string, exitCode = 0, stderr = ''): CommandResult => ({
  exitCode,
  stdout,
  stderr,
  timedOut: false,
  notFound: false,
});
const NOT_FOUND: CommandResult = { exitCode: null, stdout: '', stderr: '', timedOut: false, notFound: true };
const TIMED_OUT: CommandResult = { exitCode: null, stdout: '', stderr: '', timedOut: true, notFound: false };

/** Answers of a ready machine, by `<command> <first argument>`; `overrides` replace some. */
function fakeRunner(overrides: Record<string, CommandResult> = {}) {
  const answers: Record<string, CommandResult> = {
    'docker info': done('27.3.1\n'),
    'docker buildx': done('github.com/docker/buildx v0.17.1 257815a\n'),
    'npm ping': done(''),
    'aws sts': done('arn:aws:iam::123456789012:user/deployer\n'),
    ...overrides,
  };
  const calls: { command: string; timeoutMs: number }[] = [];
  const runner: CommandRunner = async (command, args, timeoutMs) => {
    const key = `${command} ${args[0]}`;
    calls.push({ command: key, timeoutMs });
    return answers[key] ?? NOT_FOUND;
  };
  return { runner, calls };
}

async function check(runner: CommandRunner, nodeVersion = '22.11.0') {
  const checks = await checkEnvironment({
    runner,
    nodeVersion,
    requiredNode: '>=20.19',
    commandTimeoutMs: 50,
    networkTimeoutMs: 20,
  });
  return Object.fromEntries(checks.map((entry) => [entry.name, entry])) as Record<string, EnvironmentCheck>;
}

describe('environment preflight', () => {
  it('passes a ready machine, every command bounded by its timeout', async () => {
    const { runner, calls } = fakeRunner();
    const checks = await check(runner);
    expect(Object.values(checks).map((entry) => entry.result)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(checks['Docker daemon']?.detail).toBe('server 27.3.1');
    expect(checks['AWS credentials']?.detail).toBe('arn:aws:iam::123456789012:user/deployer');
    expect(calls.map((call) => call.timeoutMs)).toEqual([50, 50, 20, 20]);
    expect(formatEnvironmentReport(Object.values(checks))).toMatch(
      /^CHECK +RESULT +DETAIL\nNode\.js +ok +22\.11\.0/,
    );
  });

  it('fails without Docker, and does not look for buildx then', async () => {
    const { runner, calls } = fakeRunner({ 'docker info': NOT_FOUND });
    const checks = await check(runner);
    expect(checks['Docker daemon']).toMatchObject({
      result: 'FAIL',
      detail: expect.stringMatching(/not installed/),
    });
    expect(checks['BuildKit (docker buildx)']?.result).toBe('not checked');
    expect(calls.map((call) => call.command)).not.toContain('docker buildx');
  });

  it('fails when the Docker daemon is not running or does not answer', async () => {
    const stopped = fakeRunner({
      'docker info': done('', 1, 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock.'),
    });
    expect((await check(stopped.runner))['Docker daemon']).toMatchObject({
      result: 'FAIL',
      detail: 'not reachable: Cannot connect to the Docker daemon at unix:///var/run/docker.sock.',
    });
    const hung = fakeRunner({ 'docker info': TIMED_OUT });
    expect((await check(hung.runner))['Docker daemon']?.detail).toBe(
      'docker info did not answer within 50 ms',
    );
  });

  it('fails a Docker without buildx', async () => {
    const { runner } = fakeRunner({
      'docker buildx': done('', 1, "docker: 'buildx' is not a docker command."),
    });
    const checks = await check(runner);
    expect(checks['Docker daemon']?.result).toBe('ok');
    expect(checks['BuildKit (docker buildx)']).toMatchObject({
      result: 'FAIL',
      detail: expect.stringContaining('docker buildx is missing'),
    });
  });

  it('fails missing or expired AWS credentials, and leaves them not checked offline or without the CLI', async () => {
    const missing = fakeRunner({
      'aws sts': done(
        '',
        253,
        '\nUnable to locate credentials. You can configure credentials by running "aws configure".',
      ),
    });
    expect((await check(missing.runner))['AWS credentials']).toMatchObject({
      result: 'FAIL',
      detail: expect.stringMatching(/^Unable to locate credentials/),
    });
    const expired = fakeRunner({
      'aws sts': done(
        '',
        254,
        'An error occurred (ExpiredToken) when calling the GetCallerIdentity operation',
      ),
    });
    expect((await check(expired.runner))['AWS credentials']?.result).toBe('FAIL');
    const offline = fakeRunner({
      'aws sts': done('', 255, 'Could not connect to the endpoint URL: "https://sts.amazonaws.com/"'),
    });
    expect((await check(offline.runner))['AWS credentials']?.result).toBe('not checked');
    expect((await check(fakeRunner({ 'aws sts': TIMED_OUT }).runner))['AWS credentials']?.result).toBe(
      'not checked',
    );
    expect((await check(fakeRunner({ 'aws sts': NOT_FOUND }).runner))['AWS credentials']?.result).toBe(
      'not checked',
    );
  });

  it('fails an unreachable npm registry, and leaves it not checked when npm does not answer in time', async () => {
    const unreachable = fakeRunner({
      'npm ping': done('', 1, 'npm warn config\nnpm error code ENOTFOUND\nnpm error network'),
    });
    expect((await check(unreachable.runner))['npm registry']).toMatchObject({
      result: 'FAIL',
      detail: expect.stringContaining('npm error code ENOTFOUND'),
    });
    expect((await check(fakeRunner({ 'npm ping': TIMED_OUT }).runner))['npm registry']?.result).toBe(
      'not checked',
    );
  });

  it("holds Node to package.json's engines range", () => {
    expect(checkNode('20.19.0', '>=20.19').result).toBe('ok');
    expect(checkNode('v22.1.0', '>=20.19').result).toBe('ok');
    expect(checkNode('20.18.3', '>=20.19')).toEqual({
      name: 'Node.js',
      result: 'FAIL',
      detail: '20.18.3, the CDK app needs >=20.19',
    });
    expect(checkNode('18.20.0', '>=20.19').result).toBe('FAIL');
    expect(checkNode('22.0.0', '^22').result).toBe('not checked');
  });

  it('runs real commands without hanging: a missing program, a timeout, an exit code', async () => {
    expect((await runCommand('no-such-program-for-the-preflight', [], 1_000)).notFound).toBe(true);
    const slow = await runCommand(process.execPath, ['-e', 'setTimeout(() => {}, 10_000)'], 200);
    expect(slow).toMatchObject({ timedOut: true, exitCode: null });
    const failing = await runCommand(process.execPath, ['-e', 'console.error("no"); process.exit(3)'], 5_000);
    expect(failing).toMatchObject({ exitCode: 3, stderr: 'no\n', timedOut: false, notFound: false });
  });
});
