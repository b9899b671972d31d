/**
 * `postinstall`: leaves the npm ffmpeg and ffprobe binaries runnable. This project denies its
 * dependencies' install scripts (package.json `allowScripts`), and the platform packages of
 * `@ffprobe-installer` publish `ffprobe` without its run bit (their install script would add it), so
 * without this the first probe finds a file it cannot run. Plain JavaScript with no dependencies, so it
 * runs before anything is built and with dev dependencies omitted; idempotent (a runnable binary is left
 * alone); silent where a package is absent (an unsupported platform, a trimmed install), and it never
 * fails the install: the engine adds the owner's run bit on first use (ffmpeg-binaries.ts) and says
 * what to set when it cannot.
 *
 * Packages are resolved from the working directory, which npm sets to the project root.
 */
import { chmodSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const PACKAGES = ['@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe'];
const require = createRequire(join(process.cwd(), 'package.json'));

for (const name of PACKAGES) {
  let path;
  try {
    path = require(name).path;
  } catch {
    continue; // not installed, or no build for this platform: nothing to make runnable
  }
  try {
    const { mode } = statSync(path);
    // Whoever may read it may run it (`chmod +x` limited to the read bits), as the packages intend.
    const runnable = mode | ((mode & 0o444) >> 2);
    if (runnable !== mode) chmodSync(path, runnable);
  } catch (error) {
    console.warn(
      `postinstall: could not make ${path} runnable (${error.message}); set FFMPEG_PATH/FFPROBE_PATH`,
    );
  }
}
