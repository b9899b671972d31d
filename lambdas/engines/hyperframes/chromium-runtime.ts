/**
 * The Chromium HyperFrames renders with: `@sparticuz/chromium`, which ships a headless Chromium inside
 * the npm package (brotli archives under `bin/`). `executablePath()` unpacks the browser, its fonts and
 * SwiftShader to the temp directory once per machine; its libraries (`al2023.tar.br`, which the package
 * only unpacks itself on Amazon Linux 2023) are unpacked here on every system, since a bare Debian lacks
 * them too. Done once per process (the promise is kept), and again after a failure.
 *
 * The producer takes one executable path (`chromePath`) and no launch arguments, so each render starts
 * Chromium through a small launcher script of its own: the libraries and fonts in the environment, the
 * render's blocking proxy (offline-network.ts), and on Lambda `--single-process` (Lambda's sandbox has
 * no room for Chromium's zygote and GPU processes).
 */
import { chmod, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ChromiumInstall {
  executable: string;
  libraryPath: string;
  fontConfigPath: string;
}

let install: Promise<ChromiumInstall> | undefined;

async function unpack(): Promise<ChromiumInstall> {
  const { default: chromium, inflate } = await import('@sparticuz/chromium');
  const require = createRequire(import.meta.url);
  const binDirectory = path.join(path.dirname(require.resolve('@sparticuz/chromium')), '..', 'bin');
  const executable = await chromium.executablePath(binDirectory);
  const libraries = await inflate(path.join(binDirectory, 'al2023.tar.br'));
  return {
    executable,
    libraryPath: path.join(libraries, 'lib'),
    fontConfigPath: path.join(tmpdir(), 'fonts'),
  };
}

/** Chromium, unpacked (once). */
export function chromiumInstall(): Promise<ChromiumInstall> {
  install ??= unpack().catch((error: unknown) => {
    install = undefined;
    throw error;
  });
  return install;
}

/** Writes the launcher of one render (see the module comment) into `directory`; its path. */
export async function writeChromiumLauncher(
  chromium: ChromiumInstall,
  directory: string,
  proxyPort: number,
): Promise<string> {
  const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
  const singleProcess = process.env.AWS_LAMBDA_FUNCTION_NAME ? ' --single-process' : '';
  const launcher = path.join(directory, 'chromium-launcher.sh');
  await writeFile(
    launcher,
    [
      '#!/bin/sh',
      `export LD_LIBRARY_PATH=${quote(chromium.libraryPath)}\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}`,
      `export FONTCONFIG_PATH=${quote(chromium.fontConfigPath)}`,
      `exec ${quote(chromium.executable)} "$@" --proxy-server=http://127.0.0.1:${proxyPort}${singleProcess}`,
      '',
    ].join('\n'),
  );
  await chmod(launcher, 0o755);
  return launcher;
}
