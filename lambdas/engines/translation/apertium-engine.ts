/**
 * `apertium`: the Apertium rule-based translator, when its `apertium` binary is installed with the
 * language pair (`apt-get install apertium apertium-en-es`). Run as a child process without a shell
 * (`APERTIUM_PATH`, default `apertium` on PATH): `apertium -l` lists the installed pairs (`en-es`), and
 * `apertium -u <source>-<target>` translates one segment from stdin to stdout (`-u`: unknown words are
 * left as they are, without Apertium's `*` mark), under `APERTIUM_TIMEOUT_MS`.
 *
 * Apertium cannot be told about a glossary: terms are masked with placeholders it passes through as
 * unknown words, then restored to the term or its forced translation (`maskGlossaryTerms`), and the
 * glossary is checked afterwards as for every engine.
 *
 * Errors: the binary missing → `engine_unavailable` naming the packages to install; the pair missing →
 * `language_pair_unsupported` naming the pair's package; a failed or timed-out run → `translation_failed`.
 */
import { spawn } from 'node:child_process';
import {
  enforceGlossary,
  maskGlossaryTerms,
  primaryLanguage,
  type TranslationEngine,
  TranslationError,
  type TranslationRequest,
  type TranslationResult,
  validateTranslationRequest,
} from './translation-engine.js';

export const APERTIUM_ENGINE = 'apertium';

export interface ApertiumEngineOptions {
  /** The executable. */
  path: string;
  /** Deadline of one run, in milliseconds. */
  timeoutMs: number;
}

/** Largest output read from one run. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

class ApertiumRunError extends Error {
  constructor(
    message: string,
    readonly missing = false,
  ) {
    super(message);
  }
}

/** Runs the binary with `args`, `input` on stdin; resolves with stdout. No shell: arguments are passed as they are. */
function run(options: ApertiumEngineOptions, args: readonly string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.path, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new ApertiumRunError(`apertium ${args.join(' ')} did not finish within ${options.timeoutMs} ms`),
      );
    }, options.timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new ApertiumRunError(
          error.code === 'ENOENT' || error.code === 'EACCES'
            ? `${options.path} cannot be run (${error.code})`
            : error.message,
          error.code === 'ENOENT' || error.code === 'EACCES',
        ),
      );
    });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(stdout).toString('utf8'));
      else {
        const detail = Buffer.concat(stderr).toString('utf8').trim().slice(0, 300);
        reject(
          new ApertiumRunError(
            `apertium ${args.join(' ')} exited with ${signal ?? `code ${code}`}${detail ? `: ${detail}` : ''}`,
          ),
        );
      }
    });
    // A binary that exits without reading its input must not crash the process with EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

class ApertiumEngine implements TranslationEngine {
  readonly name = APERTIUM_ENGINE;
  private pairs: Promise<Set<string>> | undefined;

  constructor(private readonly options: ApertiumEngineOptions) {}

  async translate(request: TranslationRequest): Promise<TranslationResult> {
    validateTranslationRequest(request);
    const pair = `${primaryLanguage(request.sourceLanguage)}-${primaryLanguage(request.targetLanguage)}`;
    const installed = await this.installedPairs(pair);
    if (!installed.has(pair)) {
      throw new TranslationError(
        'language_pair_unsupported',
        `Apertium has no ${pair} pair installed${installed.size ? ` (installed: ${[...installed].sort().join(', ')})` : ''}: install it with \`apt-get install apertium-${pair}\`.`,
      );
    }
    const translated: string[] = [];
    for (const segment of request.segments) {
      if (segment.trim() === '') {
        translated.push(segment);
        continue;
      }
      const { masked, restore } = maskGlossaryTerms(segment, request.glossary);
      try {
        translated.push(restore((await run(this.options, ['-u', pair], masked)).trim()));
      } catch (error) {
        throw new TranslationError(
          'translation_failed',
          `Apertium failed to translate: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    const { segments, violations } = enforceGlossary(request.segments, translated, request.glossary);
    return { engine: this.name, segments, glossaryViolations: violations };
  }

  /** The pairs `apertium -l` lists, asked once per engine. */
  private installedPairs(wanted: string): Promise<Set<string>> {
    this.pairs ??= run(this.options, ['-l'], '').then(
      (listing) =>
        new Set(
          listing
            .split(/\s+/)
            .map((pair) => pair.trim())
            .filter(Boolean),
        ),
      (error: unknown) => {
        this.pairs = undefined;
        if (error instanceof ApertiumRunError && error.missing) {
          throw new TranslationError(
            'engine_unavailable',
            `Apertium is not installed (${error.message}): install it with \`apt-get install apertium apertium-${wanted}\`, or set APERTIUM_PATH to its executable. Nothing was charged.`,
            { cause: error },
          );
        }
        throw new TranslationError(
          'engine_unavailable',
          `Apertium could not list its language pairs: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      },
    );
    return this.pairs;
  }
}

/** A new Apertium engine (nothing runs until the first translation). */
export function createApertiumEngine(options: ApertiumEngineOptions): TranslationEngine {
  return new ApertiumEngine(options);
}
