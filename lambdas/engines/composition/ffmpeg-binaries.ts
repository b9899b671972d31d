/**
 * Where ffmpeg and ffprobe are, and how they are run.
 *
 * Licensing: the static ffmpeg/ffprobe builds are GPL, so they only ever run as child processes; this
 * module reads the npm packages' path lookups (plain JavaScript) and never loads the binaries.
 *
 * Resolution: `FFMPEG_PATH` / `FFPROBE_PATH` when set (a container Lambda, or a bundled build in which the
 * npm packages' own path lookups cannot work), else `@ffmpeg-installer/ffmpeg` / `@ffprobe-installer/ffprobe`.
 * The project denies its dependencies' install scripts, so the npm binaries may lack their run bit: the
 * project's own `postinstall` (bin/postinstall.mjs) adds it, and the first run here adds it again (`u+x`)
 * for installs made without scripts; where that is impossible (a read-only file system) set the
 * environment variables instead.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, chmod, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { mediaToolsConfig } from '../../core/config.js';
import { CompositionError } from './composition-engine.js';

const require = createRequire(import.meta.url);

function packagedBinary(
  tool: 'ffmpeg' | 'ffprobe',
  packageName: string,
  variable: string,
  override: string,
): string {
  if (override) return override;
  try {
    return (require(packageName) as { path: string }).path;
  } catch (error) {
    throw new CompositionError(
      'engine_unavailable',
      `${tool} is not available: set ${variable} or install ${packageName} (${String(error)})`,
      { cause: error },
    );
  }
}

/** The ffmpeg executable: `FFMPEG_PATH`, else the one in `@ffmpeg-installer/ffmpeg`. */
export function ffmpegPath(): string {
  return packagedBinary('ffmpeg', '@ffmpeg-installer/ffmpeg', 'FFMPEG_PATH', mediaToolsConfig().ffmpegPath);
}

/** The ffprobe executable: `FFPROBE_PATH`, else the one in `@ffprobe-installer/ffprobe`. */
export function ffprobePath(): string {
  return packagedBinary(
    'ffprobe',
    '@ffprobe-installer/ffprobe',
    'FFPROBE_PATH',
    mediaToolsConfig().ffprobePath,
  );
}

const executableChecks = new Map<string, Promise<void>>();

/** Makes sure `path` can be executed, adding the owner's run bit once if it lacks it. */
export function ensureExecutable(path: string): Promise<void> {
  let check = executableChecks.get(path);
  if (!check) {
    check = makeExecutable(path);
    executableChecks.set(path, check);
    // A failure is not cached: the file may be fixed (or the variable changed) before the next call.
    check.catch(() => executableChecks.delete(path));
  }
  return check;
}

async function makeExecutable(path: string): Promise<void> {
  try {
    await access(path, constants.X_OK);
    return;
  } catch {
    // Not executable (or missing): try to add the run bit below.
  }
  try {
    const { mode } = await stat(path);
    await chmod(path, mode | 0o100);
    await access(path, constants.X_OK);
  } catch (error) {
    throw new CompositionError(
      'engine_unavailable',
      `${path} is missing or cannot be made executable: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

export interface RunOptions {
  /** Working directory of the child. */
  cwd?: string;
  /** The child's whole environment. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** The child is killed (SIGKILL) after this long. */
  timeoutMs: number;
}

export interface RunResult {
  stdout: string;
  /** The last 64 KiB of stderr: ffmpeg's reason for a failure is at its end. */
  stderr: string;
}

/** Why a child process failed, for callers to map to their own failure codes. */
export class ProcessError extends Error {
  override readonly name = 'ProcessError';

  constructor(
    readonly reason: 'spawn_failed' | 'timed_out' | 'exit_code',
    message: string,
    readonly stderr: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const STDERR_TAIL_BYTES = 64 * 1024;

/** Runs `command` with `args` (no shell) and collects its output. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.length > 2 * STDERR_TAIL_BYTES) stderr = stderr.slice(-STDERR_TAIL_BYTES);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(
        new ProcessError('spawn_failed', `cannot run ${command}: ${error.message}`, '', { cause: error }),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const tail = stderr.slice(-STDERR_TAIL_BYTES);
      if (timedOut) {
        reject(
          new ProcessError('timed_out', `${command} did not finish within ${options.timeoutMs} ms`, tail),
        );
      } else if (code !== 0) {
        reject(new ProcessError('exit_code', `${command} exited with ${code ?? signal}`, tail));
      } else {
        resolve({ stdout: Buffer.concat(stdout).toString('utf8'), stderr: tail });
      }
    });
  });
}

/** The last non-empty line of a tool's stderr: its reason for failing. */
export function lastLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.at(-1) ?? 'no error message';
}

/** Why an ffmpeg run of a composition failed: it could not start (`engine_unavailable`), or it failed. */
export function compositionFailureOf(error: unknown): CompositionError {
  if (error instanceof ProcessError && error.reason === 'spawn_failed') {
    return new CompositionError('engine_unavailable', error.message, { cause: error });
  }
  const reason = error instanceof ProcessError && error.stderr ? `: ${lastLine(error.stderr)}` : '';
  return new CompositionError('composition_failed', `${(error as Error).message}${reason}`, { cause: error });
}

/**
 * The raw frames of an ffmpeg process's output (`-f rawvideo`), `frameBytes` each, in a new buffer per
 * frame: the consumer may keep one while the next is read. A partial last frame is dropped.
 */
export async function* rawFrames(output: AsyncIterable<Buffer>, frameBytes: number): AsyncGenerator<Buffer> {
  let frame = Buffer.allocUnsafe(frameBytes);
  let filled = 0;
  for await (const chunk of output) {
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(frameBytes - filled, chunk.length - offset);
      chunk.copy(frame, filled, offset, offset + take);
      filled += take;
      offset += take;
      if (filled === frameBytes) {
        yield frame;
        frame = Buffer.allocUnsafe(frameBytes);
        filled = 0;
      }
    }
  }
}
