/** `npm install` leaves ffmpeg and ffprobe runnable (bin/postinstall.mjs), and never fails because of them. */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const script = resolve('bin/postinstall.mjs');
const run = (cwd: string) => promisify(execFile)(process.execPath, [script], { cwd });
const projects: string[] = [];
afterEach(async () => {
  for (const project of projects.splice(0)) await rm(project, { recursive: true, force: true });
});

/** A project whose npm packages resolve to binaries as published, without their run bit. */
async function projectWith(packages: string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'postinstall-'));
  projects.push(root);
  await writeFile(join(root, 'package.json'), '{"name":"p","private":true}');
  for (const name of packages) {
    const directory = join(root, 'node_modules', name);
    await mkdir(directory, { recursive: true });
    const binary = join(directory, name.split('/')[1] ?? 'tool');
    await writeFile(binary, '#!/bin/sh\necho ok\n');
    await chmod(binary, 0o644);
    await writeFile(join(directory, 'package.json'), `{"name":"${name}","main":"index.js"}`);
    await writeFile(join(directory, 'index.js'), `module.exports = { path: ${JSON.stringify(binary)} };`);
  }
  return root;
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('postinstall', () => {
  it.skipIf(process.platform === 'win32')('makes both binaries runnable, and is idempotent', async () => {
    const root = await projectWith(['@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe']);
    const ffprobe = join(root, 'node_modules/@ffprobe-installer/ffprobe/ffprobe');
    const ffmpeg = join(root, 'node_modules/@ffmpeg-installer/ffmpeg/ffmpeg');
    await run(root);
    expect(await modeOf(ffprobe)).toBe(0o755);
    expect(await modeOf(ffmpeg)).toBe(0o755);
    const again = await run(root);
    expect(again.stderr).toBe('');
    expect(await modeOf(ffprobe)).toBe(0o755);
    expect((await promisify(execFile)(ffprobe)).stdout).toBe('ok\n');
  });

  it('succeeds silently where the packages are absent (another platform, a trimmed install)', async () => {
    const root = await projectWith([]);
    const result = await run(root);
    expect(result).toMatchObject({ stdout: '', stderr: '' });
  });

  it('is the package’s postinstall script', async () => {
    const { scripts } = (await import('../../package.json', { with: { type: 'json' } })).default as {
      scripts: Record<string, string>;
    };
    expect(scripts.postinstall).toBe('node bin/postinstall.mjs');
  });
});
