/**
 * The media container image: the one Lambda image of the stack, for the functions whose packages do
 * not fit a zip bundle (Lambda's 250 MB unzipped limit) or need native binaries: video composition
 * (ffmpeg, ffprobe, captions drawn with bundled fonts), the catalog publisher (sharp, the speech
 * engines) and the vision engines (face landmarks, person segmentation: TensorFlow.js on WASM). One
 * image serves all of them; each function picks its handler with its own CMD (`<module>.<export>`,
 * e.g. `videos/render-steps.Compose`: a job's steps share one module).
 *
 * What is in it, on AWS's Lambda base image `public.ecr.aws/lambda/nodejs:<major>` with the zip
 * functions' Node.js major version and architecture (ARM64):
 * - `/var/task/node_modules`: exactly the packages of {@link MEDIA_IMAGE_PACKAGES} and what they depend on,
 *   at the versions of the project's `package-lock.json`, with the Linux ARM64 builds of their
 *   platform packages (`@ffmpeg-installer/linux-arm64`, `@ffprobe-installer/linux-arm64`,
 *   `@img/sharp-linux-arm64` with its libvips). Install scripts stay off (`--ignore-scripts`, as in
 *   the project's `allowScripts`); the image sets the ffmpeg/ffprobe run bits itself and points
 *   `FFMPEG_PATH`/`FFPROBE_PATH` at them.
 * - HyperFrames (`@hyperframes/producer`, `@sparticuz/chromium`, `gsap`): Chromium is unpacked from its
 *   package to /tmp on the first render of a container and started with `--single-process`
 *   (lambdas/engines/hyperframes/chromium-runtime.ts); together about 390 MB, which no zip bundle holds.
 * - `/var/task/models`: the repository's `vendor/models/` (the vendored segmentation model), which
 *   bundled code cannot find relative to its source; `VISION_MODELS_DIR` points at it.
 * - `/var/task/<module>.mjs`: one esbuild bundle per entry module, built like the zip bundles (AWS SDK,
 *   Powertools, zod, ... inside the bundle), with the packages above kept external; beside each, the
 *   worker files the bundle starts (the eSpeak NG worker, see `BUNDLE_WORKERS`) and the data files its
 *   modules read (the icon index, see `BUNDLE_DATA_FILES`).
 *
 * How it is built: synthesis only STAGES a small, dedicated Docker build context under the cloud
 * assembly (`<cdk.out>/.media-image/`: Dockerfile, a package.json + package-lock.json subset, the
 * bundles), never the repository root (node_modules, cdk.out). `cdk deploy` builds it with Docker and
 * pushes it to the bootstrap ECR repository, so synth needs no Docker, and deploy needs Docker with
 * BuildKit (the default since Docker Engine 23) and access to the npm registry. The install stage
 * runs on the build machine's own platform and only downloads and unpacks (npm's `--os/--cpu/--libc`
 * pick the ARM64 packages), and the final stage only copies, so an x86-64 machine builds the ARM64
 * image without emulation.
 *
 * Like the zip bundles, the handlers are bundled only when the stack is (`Stack.bundlingRequired`);
 * otherwise (tests, `cdk ls`) the context holds stubs that refuse to run.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Stack, Stage } from 'aws-cdk-lib';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { DockerImageCode } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import {
  addDataFiles,
  BUNDLE_WORKERS,
  inputsByOutput,
  LAMBDA_BUILD_OPTIONS,
  workerEntryPoints,
} from './handler-bundles.js';
import { FUNCTION_ARCHITECTURE, FUNCTION_RUNTIME } from './service-function.js';

/** Node.js major of the zip functions' runtime (`nodejs24.x` → `24`): the image runs the same one. */
const NODE_MAJOR = /^nodejs(\d+)\.x$/.exec(FUNCTION_RUNTIME.name)?.[1];
if (!NODE_MAJOR) throw new Error(`Cannot read a Node.js major version from runtime ${FUNCTION_RUNTIME.name}`);

/**
 * AWS's Lambda base image for Node.js, the same major version as the zip functions (the newest Lambda
 * offers; Node.js 20 reached its end of life in April 2026 and its image no longer gets fixes).
 */
export const MEDIA_IMAGE_BASE = `public.ecr.aws/lambda/nodejs:${NODE_MAJOR}`;

/** Docker's and npm's names of the functions' architecture (the base image is Amazon Linux, glibc). */
const TARGETS = {
  arm64: { docker: Platform.LINUX_ARM64, npm: { os: 'linux', cpu: 'arm64', libc: 'glibc' } },
  x86_64: { docker: Platform.LINUX_AMD64, npm: { os: 'linux', cpu: 'x64', libc: 'glibc' } },
} as const;
const TARGET = TARGETS[FUNCTION_ARCHITECTURE.name as keyof typeof TARGETS];
if (!TARGET) throw new Error(`The media image has no build for architecture ${FUNCTION_ARCHITECTURE.name}`);
const NPM_PLATFORM = TARGET.npm;

/** Where Lambda's base image expects the function code (`LAMBDA_TASK_ROOT`). */
export const MEDIA_IMAGE_TASK_ROOT = '/var/task';

/**
 * Packages installed into the image rather than bundled: native binaries, data files read from their
 * package directory, packages that find their platform build at run time. Every one must be a
 * dependency of the project's package.json.
 */
export const MEDIA_IMAGE_PACKAGES = [
  '@ffmpeg-installer/ffmpeg',
  '@ffprobe-installer/ffprobe',
  'dejavu-fonts-ttf',
  'sharp',
  '@echogarden/espeak-ng-emscripten',
  // The catalog publisher reads the icons' SVG files to publish them (lambdas/catalog/icon-catalog.ts).
  '@tabler/icons',
  // The vision runtime (lambdas/engines/vision/human-runtime.ts) requires these by resolved path and
  // reads Human's face models and the WASM backend's .wasm files from their package directories.
  '@vladmandic/human',
  '@tensorflow/tfjs-core',
  '@tensorflow/tfjs-converter',
  '@tensorflow/tfjs-backend-wasm',
  // The PDF reader (lambdas/engines/documents/pdf-text.ts): pdf.js's display layer needs DOMMatrix at
  // load, which Node.js lacks and pdf.js takes from its optional @napi-rs/canvas (MIT, a native build).
  'pdfjs-dist',
  // HyperFrames renders (lambdas/engines/hyperframes/): the producer (it bundles its own puppeteer but
  // loads its runtime files from its package directory), Chromium shipped as brotli archives read from
  // its package's bin/, and the GSAP served to compositions that load it from a CDN.
  '@hyperframes/producer',
  '@sparticuz/chromium',
  'gsap',
] as const;

/** The executables inside the image (run bits set at build, paths in the environment). */
export const MEDIA_IMAGE_ENVIRONMENT = {
  FFMPEG_PATH: `${MEDIA_IMAGE_TASK_ROOT}/node_modules/@ffmpeg-installer/${NPM_PLATFORM.os}-${NPM_PLATFORM.cpu}/ffmpeg`,
  FFPROBE_PATH: `${MEDIA_IMAGE_TASK_ROOT}/node_modules/@ffprobe-installer/${NPM_PLATFORM.os}-${NPM_PLATFORM.cpu}/ffprobe`,
} as const;

/** Where the vendored vision models are copied in the image (from the repository's `vendor/models/`). */
export const MEDIA_IMAGE_MODELS_DIR = `${MEDIA_IMAGE_TASK_ROOT}/models`;

/** The models' directory in the repository, copied to `models/` of the build context. */
const MODELS_SOURCE = path.join('vendor', 'models');

/** Settings of the image that are not executables: where the vision engines find their models. */
export const MEDIA_IMAGE_SETTINGS = { VISION_MODELS_DIR: MEDIA_IMAGE_MODELS_DIR } as const;

/** The image's CMD for an entry module: Lambda's Node.js runtime loads `<module>.mjs` and calls its `exportName`. */
export function mediaImageHandler(module: string, exportName = 'handler'): string {
  return `${module}.${exportName}`;
}

/** The Dockerfile of the build context. */
export function mediaImageDockerfile(): string {
  const executables = Object.values(MEDIA_IMAGE_ENVIRONMENT)
    .map((file) => path.posix.relative(MEDIA_IMAGE_TASK_ROOT, file))
    .join(' ');
  const environment = Object.entries({ ...MEDIA_IMAGE_ENVIRONMENT, ...MEDIA_IMAGE_SETTINGS })
    .map(([name, value]) => `${name}=${value}`)
    .join(' \\\n    ');
  return `# Generated by lib/stack/media-image.ts at synthesis; edit that file, not this one.

# Packages: on the build machine's own platform (no emulation), npm only downloads and unpacks the
# locked versions, choosing the ${NPM_PLATFORM.os}/${NPM_PLATFORM.cpu} builds of platform packages.
FROM --platform=$BUILDPLATFORM ${MEDIA_IMAGE_BASE} AS packages
WORKDIR /build
COPY package.json package-lock.json ./
# Source maps are only for debugging the packages (about 48 MB of TensorFlow.js's alone): left out.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \\
      --os=${NPM_PLATFORM.os} --cpu=${NPM_PLATFORM.cpu} --libc=${NPM_PLATFORM.libc} \\
 && find node_modules -type f -name '*.map' -delete \\
 && chmod 0755 ${executables}

FROM ${MEDIA_IMAGE_BASE}
COPY --from=packages /build/node_modules ${MEDIA_IMAGE_TASK_ROOT}/node_modules
COPY models/ ${MEDIA_IMAGE_MODELS_DIR}/
COPY handlers/ ${MEDIA_IMAGE_TASK_ROOT}/
ENV ${environment}
`;
}

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optional?: boolean;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [field: string]: unknown;
}

interface Lockfile {
  name?: string;
  version?: string;
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

/** The directory a lock entry's own dependencies are resolved from first, then its ancestors'. */
function parentOf(location: string): string {
  const index = location.lastIndexOf('/node_modules/');
  return index < 0 ? '' : location.slice(0, index);
}

/**
 * A package.json naming only `packages` (with the project's version ranges) and the matching part of
 * the project's package-lock.json (v2/v3): those packages and everything they depend on, resolved the
 * way Node and npm resolve (`<dir>/node_modules/<name>`, then each parent), so `npm ci` installs
 * exactly the locked versions. Entries reached only through optional dependencies stay optional
 * (npm skips those of other platforms).
 */
export function lockfileSubset(
  projectRoot: string,
  packages: readonly string[],
): { manifest: Record<string, unknown>; lockfile: Lockfile } {
  const project = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    dependencies?: Record<string, string>;
    overrides?: Record<string, unknown>;
  };
  const lock = JSON.parse(readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8')) as Lockfile;
  if (lock.lockfileVersion < 2) throw new Error('package-lock.json must be lockfile version 2 or later');
  const dependencies: Record<string, string> = {};
  for (const name of packages) {
    const range = project.dependencies?.[name];
    if (!range) throw new Error(`${name} must be a dependency in package.json to go into the media image`);
    dependencies[name] = range;
  }

  /** Location → whether it is reached only through optional dependencies. */
  const reached = new Map<string, boolean>();
  const visit = (from: string, name: string, optional: boolean, peer: boolean): void => {
    for (let base = from; ; base = parentOf(base)) {
      const location = `${base ? `${base}/` : ''}node_modules/${name}`;
      const entry = lock.packages[location];
      if (entry) {
        const known = reached.get(location);
        if (known === false || known === optional) return;
        reached.set(location, optional);
        for (const dependency of Object.keys(entry.dependencies ?? {}))
          visit(location, dependency, optional, false);
        for (const dependency of Object.keys(entry.optionalDependencies ?? {}))
          visit(location, dependency, true, false);
        for (const dependency of Object.keys(entry.peerDependencies ?? {}))
          visit(location, dependency, optional, true);
        return;
      }
      if (!base) break;
    }
    // npm leaves out optional packages and peers nobody installed; anything else means a stale lock.
    if (!optional && !peer) {
      throw new Error(`package-lock.json has no ${name} for ${from || 'the project'}: run npm install`);
    }
  };
  for (const name of packages) visit('', name, false, false);

  const root = { name: `${project.name}-media-image`, version: project.version, dependencies };
  const lockfile: Lockfile = {
    ...root,
    lockfileVersion: lock.lockfileVersion,
    packages: { '': root },
  };
  for (const location of [...reached.keys()].sort()) {
    const {
      dev: _dev,
      devOptional: _devOptional,
      peer: _peer,
      optional: _optional,
      ...entry
    } = lock.packages[location] as LockEntry;
    lockfile.packages[location] = reached.get(location) ? { ...entry, optional: true } : entry;
  }
  // The project's overrides (linkedom for HyperFrames) go too: npm ci checks the lock against them.
  const overrides = project.overrides ? { overrides: project.overrides } : {};
  return { manifest: { ...root, private: true, ...overrides }, lockfile };
}

export interface MediaImageProps {
  /** Entry modules under `lambdas/` without extension, each exporting `handler`. */
  modules: readonly string[];
  /** Directory holding `lambdas/`, `package.json` and `package-lock.json`. @default process.cwd() */
  projectRoot?: string;
}

/** Stages the media image's build context and hands out `DockerImageCode` per entry module. */
export class MediaImage extends Construct {
  /** The staged Docker build context. */
  readonly contextDirectory: string;
  private readonly modules: ReadonlySet<string>;

  constructor(scope: Construct, id: string, props: MediaImageProps) {
    super(scope, id);
    const projectRoot = props.projectRoot ?? process.cwd();
    this.modules = new Set(props.modules);
    const outdir = Stage.of(this)?.outdir;
    if (!outdir) throw new Error('MediaImage must be created inside an App or Stage');
    for (const worker of BUNDLE_WORKERS) {
      const missing = worker.packages.filter(
        (name) => !(MEDIA_IMAGE_PACKAGES as readonly string[]).includes(name),
      );
      if (missing.length > 0) {
        throw new Error(`The media image must install ${missing.join(', ')} (loaded by ${worker.file})`);
      }
    }

    // Absolute, as in HandlerBundles: the CLI passes a relative outdir, and bundle paths are compared resolved.
    this.contextDirectory = path.resolve(outdir, '.media-image', this.node.addr);
    rmSync(this.contextDirectory, { recursive: true, force: true });
    const handlersDirectory = path.join(this.contextDirectory, 'handlers');
    mkdirSync(handlersDirectory, { recursive: true });
    const { manifest, lockfile } = lockfileSubset(projectRoot, MEDIA_IMAGE_PACKAGES);
    writeFileSync(path.join(this.contextDirectory, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(
      path.join(this.contextDirectory, 'package-lock.json'),
      `${JSON.stringify(lockfile, null, 2)}\n`,
    );
    writeFileSync(path.join(this.contextDirectory, 'Dockerfile'), mediaImageDockerfile());
    cpSync(path.join(projectRoot, MODELS_SOURCE), path.join(this.contextDirectory, 'models'), {
      recursive: true,
    });

    if (Stack.of(this).bundlingRequired) {
      bundleHandlers(projectRoot, [...this.modules], handlersDirectory);
    } else {
      for (const module of this.modules) {
        const stub = path.join(handlersDirectory, `${module}.mjs`);
        mkdirSync(path.dirname(stub), { recursive: true });
        writeFileSync(
          stub,
          "export const handler = async () => { throw new Error('This image was synthesized without bundling (tests, cdk ls) and cannot run'); };\n",
        );
      }
    }
  }

  /**
   * The image as an ECR asset for an ECS task (the realtime streaming service), which names its own
   * command: the same build context, so the same image as the functions'.
   */
  imageAsset(scope: Construct, id: string, module: string): DockerImageAsset {
    if (!this.modules.has(module)) throw new Error(`Entry ${module} was not declared to MediaImage`);
    return new DockerImageAsset(scope, id, { directory: this.contextDirectory, platform: TARGET.docker });
  }

  /** The image with `module`'s `exportName` as its CMD. */
  codeFor(module: string, exportName = 'handler'): DockerImageCode {
    if (!this.modules.has(module)) throw new Error(`Entry ${module} was not declared to MediaImage`);
    return DockerImageCode.fromImageAsset(this.contextDirectory, {
      cmd: [mediaImageHandler(module, exportName)],
      platform: TARGET.docker,
    });
  }
}

/**
 * One esbuild run for the image's entries (and the workers they start), with the same settings as
 * the zip bundles (`HandlerBundles`) but the image's packages external: `handlers/<module>.mjs`.
 */
function bundleHandlers(projectRoot: string, modules: readonly string[], handlersDirectory: string): void {
  const entryPoints: Record<string, string> = {};
  for (const module of modules) entryPoints[module] = path.join(projectRoot, 'lambdas', `${module}.ts`);
  const workerDirectory = '.workers';
  Object.assign(entryPoints, workerEntryPoints(projectRoot, workerDirectory));
  const { metafile } = buildSync({
    absWorkingDir: projectRoot,
    entryPoints,
    external: [...MEDIA_IMAGE_PACKAGES],
    metafile: true,
    outdir: handlersDirectory,
    ...LAMBDA_BUILD_OPTIONS,
    target: `node${NODE_MAJOR}`,
  });
  const inputs = inputsByOutput(projectRoot, metafile);
  addWorkers(projectRoot, modules, handlersDirectory, inputs, workerDirectory);
  addDataFiles(
    projectRoot,
    modules.map((module) => path.join(handlersDirectory, `${module}.mjs`)),
    inputs,
  );
}

/** Puts each worker beside every bundle that starts it (its packages are in the image's node_modules). */
function addWorkers(
  projectRoot: string,
  modules: readonly string[],
  handlersDirectory: string,
  inputs: ReadonlyMap<string, ReadonlySet<string>>,
  workerDirectory: string,
): void {
  for (const worker of BUNDLE_WORKERS) {
    const starter = path.join(projectRoot, 'lambdas', `${worker.startedBy}.ts`);
    for (const module of modules) {
      const bundle = path.join(handlersDirectory, `${module}.mjs`);
      if (!inputs.get(bundle)?.has(starter)) continue;
      cpSync(
        path.join(handlersDirectory, workerDirectory, worker.file),
        path.join(path.dirname(bundle), worker.file),
      );
    }
  }
  rmSync(path.join(handlersDirectory, workerDirectory), { recursive: true, force: true });
}
