/**
 * The media container image's build context, as synthesis stages it: a small dedicated directory
 * (Dockerfile, a package.json/package-lock.json subset, bundles), never the repository; bundles
 * that load with only the image's packages beside them; and a lock subset `npm ci` accepts.
 * Docker itself is not needed: the image is built by `cdk deploy`.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ICON_INDEX_FILE, iconIndexFromPackage } from '../../lambdas/catalog/icon-catalog.js';
import { BUNDLE_WORKERS } from '../../lib/stack/handler-bundles.js';
import {
  lockfileSubset,
  MEDIA_IMAGE_BASE,
  MEDIA_IMAGE_ENVIRONMENT,
  MEDIA_IMAGE_MODELS_DIR,
  MEDIA_IMAGE_PACKAGES,
  MEDIA_IMAGE_SETTINGS,
  MediaImage,
  mediaImageDockerfile,
} from '../../lib/stack/media-image.js';
import { createServiceFunction, FUNCTION_RUNTIME } from '../../lib/stack/service-function.js';
import { PROJECT_ROOT } from './synth-helpers.js';

/** Entry modules of the image and the export each function runs (a job's steps module exports one per step). */
const ENTRIES = [
  { module: 'videos/render-steps', exportName: 'Compose' },
  { module: 'catalog/publish-catalog-handler', exportName: 'handler' },
] as const;
const MODULES = ENTRIES.map((entry) => entry.module);
/** The repository's `vendor/models/`, as the build context holds it. */
const STAGED_MODELS = filesUnder(path.join(PROJECT_ROOT, 'vendor', 'models')).map((file) => `models/${file}`);
if (!STAGED_MODELS.includes('models/selfie/selfie.json'))
  throw new Error('vendor/models/selfie/selfie.json is missing');

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

function appIn(context: Record<string, unknown> = {}): App {
  const outdir = mkdtempSync(path.join(tmpdir(), 'media-image-'));
  outdirs.push(outdir);
  return new App({ outdir, context, builtinCloudFormationValidation: false });
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe('the Dockerfile', () => {
  const dockerfile = mediaImageDockerfile();

  it("builds on AWS's Lambda base image of the functions' Node.js version", () => {
    const major = /^nodejs(\d+)\.x$/.exec(FUNCTION_RUNTIME.name)?.[1];
    expect(MEDIA_IMAGE_BASE).toBe(`public.ecr.aws/lambda/nodejs:${major}`);
    expect(dockerfile.match(/^FROM .*$/gm)).toEqual([
      `FROM --platform=$BUILDPLATFORM ${MEDIA_IMAGE_BASE} AS packages`,
      `FROM ${MEDIA_IMAGE_BASE}`,
    ]);
  });

  it('installs the locked packages for linux/arm64 without scripts, then only copies (no emulation)', () => {
    expect(dockerfile).toContain('npm ci --omit=dev --ignore-scripts');
    expect(dockerfile).toMatch(/--os=linux --cpu=arm64 --libc=glibc/);
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(finalStage).not.toMatch(/^RUN /m);
    expect(finalStage).toContain('COPY --from=packages /build/node_modules /var/task/node_modules');
    expect(finalStage).toContain('COPY handlers/ /var/task/');
  });

  it("leaves the packages' source maps out (TensorFlow.js ships about 48 MB of them)", () => {
    const packagesStage = dockerfile.slice(0, dockerfile.lastIndexOf('FROM '));
    expect(packagesStage).toContain("find node_modules -type f -name '*.map' -delete");
  });

  it('copies the vendored vision models and points VISION_MODELS_DIR at them', () => {
    expect(MEDIA_IMAGE_MODELS_DIR).toBe('/var/task/models');
    expect(MEDIA_IMAGE_SETTINGS).toEqual({ VISION_MODELS_DIR: '/var/task/models' });
    expect(dockerfile).toContain('COPY models/ /var/task/models/');
    expect(dockerfile).toContain('VISION_MODELS_DIR=/var/task/models');
    // The vision runtime's packages are installed, not bundled.
    for (const name of [
      '@vladmandic/human',
      '@tensorflow/tfjs-core',
      '@tensorflow/tfjs-converter',
      '@tensorflow/tfjs-backend-wasm',
    ])
      expect(MEDIA_IMAGE_PACKAGES).toContain(name);
  });

  it('sets the run bits of ffmpeg and ffprobe and points FFMPEG_PATH/FFPROBE_PATH at them', () => {
    expect(MEDIA_IMAGE_ENVIRONMENT).toEqual({
      FFMPEG_PATH: '/var/task/node_modules/@ffmpeg-installer/linux-arm64/ffmpeg',
      FFPROBE_PATH: '/var/task/node_modules/@ffprobe-installer/linux-arm64/ffprobe',
    });
    expect(dockerfile).toContain(
      'chmod 0755 node_modules/@ffmpeg-installer/linux-arm64/ffmpeg node_modules/@ffprobe-installer/linux-arm64/ffprobe',
    );
    for (const [name, value] of Object.entries(MEDIA_IMAGE_ENVIRONMENT))
      expect(dockerfile).toContain(`${name}=${value}`);
  });
});

describe('the package subset', () => {
  const project = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const { manifest, lockfile } = lockfileSubset(PROJECT_ROOT, MEDIA_IMAGE_PACKAGES);

  it("names exactly the image's packages, with the project's ranges, in package.json and the lock's root", () => {
    const expected = Object.fromEntries(
      MEDIA_IMAGE_PACKAGES.map((name) => [name, project.dependencies[name]]),
    );
    expect(manifest.dependencies).toEqual(expected);
    expect(lockfile.packages['']?.dependencies).toEqual(expected);
    // Every package a bundled worker loads at run time is installed.
    for (const worker of BUNDLE_WORKERS)
      for (const name of worker.packages) expect(MEDIA_IMAGE_PACKAGES).toContain(name);
  });

  it("carries HyperFrames' packages and the project's overrides (npm ci checks the lock against them)", () => {
    for (const name of ['@hyperframes/producer', '@sparticuz/chromium', 'gsap'])
      expect(Object.keys(lockfile.packages)).toContain(`node_modules/${name}`);
    expect(manifest.overrides).toEqual({ linkedom: '0.18.13' });
    expect(lockfile.packages['node_modules/linkedom']?.version).toBe('0.18.13');
  });

  it('is closed: every dependency of every entry resolves inside the subset, the way npm resolves it', () => {
    const locations = new Set(Object.keys(lockfile.packages));
    const resolves = (from: string, name: string) => {
      for (
        let base = from;
        ;
        base = base.includes('/node_modules/') ? base.slice(0, base.lastIndexOf('/node_modules/')) : ''
      ) {
        if (locations.has(`${base ? `${base}/` : ''}node_modules/${name}`)) return true;
        if (!base) return false;
      }
    };
    for (const [location, entry] of Object.entries(lockfile.packages)) {
      for (const name of Object.keys(entry.dependencies ?? {}))
        expect(resolves(location, name), `${location} → ${name}`).toBe(true);
    }
  });

  it('keeps platform builds optional and leaves out everything else of the project', () => {
    const entries = Object.entries(lockfile.packages).filter(([location]) => location !== '');
    for (const [location, entry] of entries) {
      if (entry.os || entry.cpu) expect(entry.optional, location).toBe(true);
      expect(entry.dev, location).toBeUndefined();
    }
    const names = entries.map(([location]) => location);
    expect(names).toContain('node_modules/@ffmpeg-installer/linux-arm64');
    expect(names).toContain('node_modules/@ffprobe-installer/linux-arm64');
    expect(names).toContain('node_modules/@img/sharp-linux-arm64');
    // (zod is there, for chromium-bidi of the producer's puppeteer-core; the handlers bundle their own.)
    for (const absent of ['aws-cdk-lib', '@aws-sdk/client-s3', 'esbuild', 'vitest']) {
      expect(names).not.toContain(`node_modules/${absent}`);
    }
  });
});

describe('MediaImage', () => {
  let app: App;
  let image: MediaImage;
  let stack: Stack;
  beforeAll(() => {
    app = appIn();
    stack = new Stack(app, 'Media');
    image = new MediaImage(stack, 'MediaImage', { projectRoot: PROJECT_ROOT, modules: MODULES });
  });

  it('stages a small dedicated build context: no node_modules, no cloud assembly, no sources', () => {
    const files = filesUnder(image.contextDirectory);
    expect(files.filter((file) => !file.startsWith('handlers/'))).toEqual([
      'Dockerfile',
      ...STAGED_MODELS,
      'package-lock.json',
      'package.json',
    ]);
    expect(files).toContain('handlers/videos/render-steps.mjs');
    expect(files).toContain('handlers/catalog/publish-catalog-handler.mjs');
    expect(files.every((file) => !file.includes('node_modules') && !file.endsWith('.ts'))).toBe(true);
    expect(image.contextDirectory.startsWith(app.outdir)).toBe(true);
  });

  it('gives the catalog publisher the icon package and the same icon index as the search', () => {
    // The publisher reads the icons' SVGs from the package, and their keys from the index, which is
    // the one the assets area's zip bundle holds: both name the same objects.
    expect(MEDIA_IMAGE_PACKAGES).toContain('@tabler/icons');
    const index = path.join(image.contextDirectory, 'handlers', 'catalog', ICON_INDEX_FILE);
    expect(JSON.parse(readFileSync(index, 'utf8'))).toEqual(iconIndexFromPackage());
    expect(existsSync(path.join(image.contextDirectory, 'handlers', 'videos', ICON_INDEX_FILE))).toBe(false);
  });

  it('puts the eSpeak worker beside every bundle that starts it', () => {
    const starts = (module: string) =>
      readFileSync(path.join(image.contextDirectory, 'handlers', `${module}.mjs`), 'utf8').includes(
        'espeak-worker',
      );
    for (const module of MODULES) {
      const worker = path.join(image.contextDirectory, 'handlers', path.dirname(module), 'espeak-worker.mjs');
      expect(existsSync(worker), module).toBe(starts(module));
    }
    expect(starts('catalog/publish-catalog-handler')).toBe(true);
  });

  it("loads each handler with nothing beside it but the image's packages", async () => {
    // The image's /var/task: the staged handlers, and node_modules (the project's stands in for it).
    const taskRoot = mkdtempSync(path.join(tmpdir(), 'media-image-task-'));
    outdirs.push(taskRoot);
    const handlers = path.join(image.contextDirectory, 'handlers');
    // Copied, not linked: Node resolves packages from a module's real path.
    cpSync(handlers, taskRoot, { recursive: true });
    symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(taskRoot, 'node_modules'));
    const script = path.join(taskRoot, 'load.mjs');
    writeFileSync(
      script,
      'for (const arg of process.argv.slice(2)) { const [file, name] = arg.split("#"); const m = await import(file); console.log(typeof m[name]); }',
    );
    const { NODE_OPTIONS: _, ...env } = process.env;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        script,
        ...ENTRIES.map(
          ({ module, exportName }) =>
            `${pathToFileURL(path.join(taskRoot, `${module}.mjs`)).href}#${exportName}`,
        ),
      ],
      { cwd: taskRoot, env: { ...env, TABLE_NAME: 'unused' } },
    );
    expect(stdout.trim().split('\n')).toEqual(ENTRIES.map(() => 'function'));
  });

  it('makes one image asset for ARM64, and a CMD per function', () => {
    for (const { module, exportName } of ENTRIES) {
      const id = module.replace(/\W/g, '');
      createServiceFunction(stack, id, {
        code: image.codeFor(module, exportName),
        runs: { bundle: module, exportName },
        role: new Role(stack, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }),
        environment: {},
        description: module,
        logRetention: RetentionDays.ONE_DAY,
        removalPolicy: RemovalPolicy.DESTROY,
      });
    }
    const template = Template.fromStack(stack);
    for (const { module, exportName } of ENTRIES) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        PackageType: 'Image',
        Architectures: ['arm64'],
        ImageConfig: { Command: [`${module}.${exportName}`] },
      });
    }
    app.synth();
    const manifest = JSON.parse(readFileSync(path.join(app.outdir, 'Media.assets.json'), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string; platform?: string } }>;
    };
    const images = Object.values(manifest.dockerImages);
    expect(images).toHaveLength(1);
    expect(images[0]?.source.platform).toBe('linux/arm64');
    // The staged copy CDK hands to Docker is the same small context.
    expect(
      filesUnder(path.join(app.outdir, images[0]?.source.directory ?? '')).filter(
        (file) => !file.startsWith('handlers/'),
      ),
    ).toEqual(['Dockerfile', ...STAGED_MODELS, 'package-lock.json', 'package.json']);
  });

  it('refuses a module it was not given', () => {
    expect(() => image.codeFor('workflows/record-job-failure')).toThrow(/not declared/);
  });
});

describe('MediaImage without bundling (tests, cdk ls)', () => {
  it('stages stubs that refuse to run instead of bundles', () => {
    const app = appIn({ 'aws:cdk:bundling-stacks': [] });
    const image = new MediaImage(new Stack(app, 'Media'), 'MediaImage', {
      projectRoot: PROJECT_ROOT,
      modules: MODULES,
    });
    for (const module of MODULES) {
      const stub = readFileSync(path.join(image.contextDirectory, 'handlers', `${module}.mjs`), 'utf8');
      expect(stub).toMatch(/synthesized without bundling/);
    }
  });
});
