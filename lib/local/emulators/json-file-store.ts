/**
 * A JSON snapshot file for emulator state that must survive a restart of the local stack.
 *
 * Writes are atomic (temporary file, fsync, rename), so a crash leaves either the old or the new
 * snapshot, never half of one. Concurrent `save` calls are group-committed: every caller waits for a
 * write that started after its call, and a burst of changes costs at most two writes.
 */
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';

/** The file exists but does not hold what this emulator wrote: refuse to start rather than lose it. */
export class CorruptStateFileError extends Error {
  readonly path: string;

  constructor(path: string, reason: string, options: { cause?: unknown } = {}) {
    super(`Emulator state file ${path} is unreadable (${reason}); move it away to start empty.`, options);
    this.name = 'CorruptStateFileError';
    this.path = path;
  }
}

export class JsonFileStore<Snapshot> {
  readonly path: string;
  private readonly schema: z.ZodType<Snapshot>;
  private readonly fileMode: number;
  private snapshot: (() => Snapshot) | undefined;
  private writing: Promise<void> | undefined;
  private nextWrite: Promise<void> | undefined;

  /**
   * @param path the snapshot file; its directory is created on first write.
   * @param schema validates what `load` reads back.
   * @param fileMode permission bits of the file; `0o600` for anything secret (key material).
   */
  constructor(path: string, schema: z.ZodType<Snapshot>, fileMode = 0o600) {
    this.path = path;
    this.schema = schema;
    this.fileMode = fileMode;
  }

  /** The stored snapshot, or `undefined` when there is no file yet. */
  async load(): Promise<Snapshot | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new CorruptStateFileError(this.path, 'not JSON', { cause: error });
    }
    const parsed = this.schema.safeParse(raw);
    if (!parsed.success) {
      throw new CorruptStateFileError(this.path, parsed.error.issues[0]?.message ?? 'unexpected shape', {
        cause: parsed.error,
      });
    }
    return parsed.data;
  }

  /**
   * Persists the state `snapshot` returns when the write starts, and resolves once a write that
   * includes every change made before this call is on disk.
   */
  save(snapshot: () => Snapshot): Promise<void> {
    this.snapshot = snapshot;
    if (!this.writing) {
      this.writing = this.write().finally(() => {
        this.writing = undefined;
      });
      return this.writing;
    }
    // A write is in flight and may have serialized the state before this change: queue one more.
    this.nextWrite ??= this.writing
      .catch(() => undefined)
      .then(() => {
        this.nextWrite = undefined;
        return this.save(snapshot);
      });
    return this.nextWrite;
  }

  /** Waits for pending writes (call before stopping). */
  async flush(): Promise<void> {
    while (this.writing || this.nextWrite) {
      await (this.nextWrite ?? this.writing);
    }
  }

  private async write(): Promise<void> {
    const snapshot = this.snapshot;
    if (!snapshot) return;
    const text = JSON.stringify(snapshot());
    await mkdir(dirname(this.path), { recursive: true });
    const temporaryPath = `${this.path}.${process.pid}.tmp`;
    const handle = await open(temporaryPath, 'w', this.fileMode);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporaryPath, this.path);
    } catch (error) {
      await rm(temporaryPath, { force: true });
      throw error;
    }
  }
}
