/**
 * The deploy machine's preflight: what `cdk deploy` needs besides the synthesized stack. Node (the
 * CDK app runs on it), Docker with BuildKit (`cdk deploy` builds the media container image, see
 * lib/stack/media-image.ts), the npm registry (that build runs `npm ci`) and AWS credentials.
 *
 * Each check runs a command through an injectable runner with a short timeout, so it never hangs
 * offline. A check that cannot tell (no AWS CLI, no network to ask with) says `not checked` rather
 * than failing: only what would certainly fail the deploy fails here.
 */
import { execFile } from 'node:child_process';

export interface CommandResult {
  /** `null` when the command did not exit by itself (timed out, or was never started). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Killed after its timeout. */
  timedOut: boolean;
  /** The program is not installed (not on the PATH). */
  notFound: boolean;
}

export type CommandRunner = (
  command: string,
  args: readonly string[],
  timeoutMs: number,
) => Promise<CommandResult>;

/** Runs a program (no shell), killing it after `timeoutMs`. */
export const runCommand: CommandRunner = (command, args, timeoutMs) =>
  new Promise((resolve) => {
    execFile(command, [...args], { timeout: timeoutMs, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      const failure = error as (NodeJS.ErrnoException & { killed?: boolean; code?: unknown }) | null;
      resolve({
        exitCode: failure ? (typeof failure.code === 'number' ? failure.code : null) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
        timedOut: failure?.killed === true,
        notFound: failure?.code === 'ENOENT',
      });
    });
  });

export interface EnvironmentCheck {
  name: string;
  result: 'ok' | 'FAIL' | 'not checked';
  detail: string;
}

export interface EnvironmentOptions {
  /** @default runCommand */
  runner?: CommandRunner;
  /** The Node version running the CDK app. @default process.versions.node */
  nodeVersion?: string;
  /** package.json's `engines.node`, a `>=major.minor[.patch]` range. */
  requiredNode: string;
  /** Longest wait for each local command (docker). @default 15 s */
  commandTimeoutMs?: number;
  /** Longest wait for each command that needs the network (npm registry, AWS). @default 10 s */
  networkTimeoutMs?: number;
}

const firstLine = (text: string) => text.trim().split('\n')[0]?.trim() ?? '';
/** npm prints warnings before its error: the first line that says error, else the first. */
const errorLine = (text: string) =>
  text
    .split('\n')
    .find((line) => /error/i.test(line))
    ?.trim() ?? firstLine(text);

function versionParts(version: string): number[] {
  return version
    .replace(/^[^\d]*/, '')
    .split('.')
    .map((part) => Number.parseInt(part, 10) || 0);
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

export function checkNode(version: string, required: string): EnvironmentCheck {
  const minimum = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(required.trim())?.[1];
  if (!minimum)
    return { name: 'Node.js', result: 'not checked', detail: `cannot read the range ${required}` };
  const older = compareVersions(versionParts(version), versionParts(minimum)) < 0;
  return older
    ? { name: 'Node.js', result: 'FAIL', detail: `${version}, the CDK app needs ${required}` }
    : { name: 'Node.js', result: 'ok', detail: `${version} (${required})` };
}

async function checkDocker(runner: CommandRunner, timeoutMs: number): Promise<EnvironmentCheck> {
  const name = 'Docker daemon';
  const info = await runner('docker', ['info', '--format', '{{.ServerVersion}}'], timeoutMs);
  if (info.notFound)
    return {
      name,
      result: 'FAIL',
      detail: 'docker is not installed: cdk deploy builds the media image with it',
    };
  if (info.timedOut)
    return { name, result: 'FAIL', detail: `docker info did not answer within ${timeoutMs} ms` };
  if (info.exitCode !== 0)
    return {
      name,
      result: 'FAIL',
      detail: `not reachable: ${firstLine(info.stderr) || firstLine(info.stdout)}`,
    };
  return { name, result: 'ok', detail: `server ${firstLine(info.stdout)}` };
}

async function checkBuildx(
  runner: CommandRunner,
  timeoutMs: number,
  docker: EnvironmentCheck,
): Promise<EnvironmentCheck> {
  const name = 'BuildKit (docker buildx)';
  if (docker.detail.startsWith('docker is not installed'))
    return { name, result: 'not checked', detail: 'no docker' };
  // The media image's Dockerfile uses BuildKit's `--platform=$BUILDPLATFORM` stages.
  if (process.env.DOCKER_BUILDKIT === '0')
    return { name, result: 'FAIL', detail: 'DOCKER_BUILDKIT=0 turns BuildKit off; the media image needs it' };
  const buildx = await runner('docker', ['buildx', 'version'], timeoutMs);
  if (buildx.timedOut)
    return { name, result: 'FAIL', detail: `docker buildx did not answer within ${timeoutMs} ms` };
  if (buildx.exitCode !== 0)
    return {
      name,
      result: 'FAIL',
      detail: `docker buildx is missing (install the buildx plugin, Docker Engine 23 or later): ${firstLine(buildx.stderr)}`,
    };
  return { name, result: 'ok', detail: firstLine(buildx.stdout) };
}

async function checkNpmRegistry(runner: CommandRunner, timeoutMs: number): Promise<EnvironmentCheck> {
  const name = 'npm registry';
  const ping = await runner('npm', ['ping', `--fetch-timeout=${timeoutMs}`, '--fetch-retries=0'], timeoutMs);
  if (ping.notFound || ping.timedOut)
    return {
      name,
      result: 'not checked',
      detail: ping.notFound ? 'no npm' : `no answer within ${timeoutMs} ms`,
    };
  if (ping.exitCode !== 0)
    return {
      name,
      result: 'FAIL',
      detail: `unreachable, and the media image build runs npm ci: ${errorLine(ping.stderr)}`,
    };
  // Reached from this machine; the image build reaches it through Docker's network.
  return { name, result: 'ok', detail: 'reachable from this machine' };
}

/** What the AWS CLI says when there are no usable credentials, as opposed to no network. */
const CREDENTIAL_ERRORS =
  /Unable to locate credentials|InvalidClientTokenId|ExpiredToken|SignatureDoesNotMatch|The config profile .* could not be found|token .* expired/i;

async function checkAwsCredentials(runner: CommandRunner, timeoutMs: number): Promise<EnvironmentCheck> {
  const name = 'AWS credentials';
  const seconds = String(Math.max(1, Math.floor(timeoutMs / 2000)));
  const identity = await runner(
    'aws',
    [
      'sts',
      'get-caller-identity',
      '--output',
      'text',
      '--query',
      'Arn',
      '--cli-connect-timeout',
      seconds,
      '--cli-read-timeout',
      seconds,
    ],
    timeoutMs,
  );
  if (identity.notFound)
    return { name, result: 'not checked', detail: 'no AWS CLI (cdk deploy resolves credentials itself)' };
  if (identity.timedOut)
    return { name, result: 'not checked', detail: `no answer within ${timeoutMs} ms (offline?)` };
  if (identity.exitCode === 0) return { name, result: 'ok', detail: firstLine(identity.stdout) };
  const message = firstLine(identity.stderr);
  return CREDENTIAL_ERRORS.test(identity.stderr)
    ? { name, result: 'FAIL', detail: message }
    : { name, result: 'not checked', detail: `could not ask STS: ${message}` };
}

/** Every check of the deploy machine, in the report's order. */
export async function checkEnvironment(options: EnvironmentOptions): Promise<EnvironmentCheck[]> {
  const runner = options.runner ?? runCommand;
  const commandTimeoutMs = options.commandTimeoutMs ?? 15_000;
  const networkTimeoutMs = options.networkTimeoutMs ?? 10_000;
  const docker = await checkDocker(runner, commandTimeoutMs);
  const [buildx, registry, credentials] = await Promise.all([
    checkBuildx(runner, commandTimeoutMs, docker),
    checkNpmRegistry(runner, networkTimeoutMs),
    checkAwsCredentials(runner, networkTimeoutMs),
  ]);
  return [
    checkNode(options.nodeVersion ?? process.versions.node, options.requiredNode),
    docker,
    buildx,
    registry,
    credentials,
  ];
}

export function formatEnvironmentReport(checks: readonly EnvironmentCheck[]): string {
  const width = (pick: (check: EnvironmentCheck) => string, title: string) =>
    Math.max(title.length, ...checks.map((check) => pick(check).length));
  const nameWidth = width((check) => check.name, 'CHECK');
  const resultWidth = width((check) => check.result, 'RESULT');
  return [
    `${'CHECK'.padEnd(nameWidth)}  ${'RESULT'.padEnd(resultWidth)}  DETAIL`,
    ...checks.map(
      (check) => `${check.name.padEnd(nameWidth)}  ${check.result.padEnd(resultWidth)}  ${check.detail}`,
    ),
  ].join('\n');
}
