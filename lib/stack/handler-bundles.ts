/**
 * Bundles every Lambda entry point of the stack with ONE esbuild call, into
 * `<cloud assembly>/.bundles/<module>/index.mjs`, and hands out `lambda.Code` for them.
 *
 * Why not one `NodejsFunction` per route: each NodejsFunction bundles its entry in its own esbuild
 * process, re-parsing the whole dependency graph (AWS SDK, Powertools, zod, ...) every time. Measured
 * on 2 cores with 14 entries: ~0.75 s per entry built separately (10.4 s) against 5.1 s for one build
 * of all of them. The routes' functions share one bundle per area (a generated entry that serves the
 * row the function's environment names, see route-plan.ts), so the route table's ~130 rows make ~20
 * bundles and assets, not ~130.
 *
 * Worker threads: a module that runs code in a `node:worker_threads` worker loads that worker from a file
 * beside its own (the eSpeak engine runs the GPL-3 eSpeak NG WebAssembly build in `espeak-worker.mjs`).
 * Each such worker (`BUNDLE_WORKERS`) is one more entry of the same esbuild call, with the packages it
 * loads at run time kept external. Every bundle whose code includes the module that starts the worker
 * (esbuild's metafile says which) gets, beside its `index.mjs`, the worker file and a `node_modules/`
 * with those packages copied whole (the eSpeak package reads `espeak-ng.data`, 24 MB, next to its own
 * `espeak-ng.js`). Bundles without that module get neither.
 *
 * Data files: a module that reads a file at run time from a package a zip bundle does not carry
 * reads a smaller file made from it beside its bundle instead (`BUNDLE_DATA_FILES`: the icon search
 * reads `tabler-icons-index.json`, 0.9 MB, rather than `@tabler/icons`, 51 MB). Every bundle whose code
 * includes that module gets the file, made once per synthesis; the media image's bundles too, so every
 * function reads the same one.
 *
 * Bundling honours CDK's own switch (`Stack.bundlingRequired`, context `aws:cdk:bundling-stacks`),
 * like NodejsFunction: when the stack is not being bundled (tests, `cdk ls`), functions get a tiny
 * inline stub that refuses to run instead.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Stack, Stage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { Construct, type IConstruct } from 'constructs';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';
import { ICON_INDEX_FILE, iconIndexFromPackage } from '../../lambdas/catalog/icon-catalog.js';

/** The exported function of every bundle: `index.mjs` exporting `handler`. */
export const BUNDLE_HANDLER = 'index.handler';

/** A worker thread some modules start from a file beside their bundle. */
export interface BundleWorker {
  /** The module (under `lambdas/`, without extension) whose presence in a bundle calls for the worker. */
  startedBy: string;
  /** The worker's module (under `lambdas/`, without extension). */
  entry: string;
  /** The worker's file name beside the bundle's `index.mjs`, where `startedBy` looks for it. */
  file: string;
  /**
   * Packages the worker imports at run time: external to every bundle, and copied into
   * `node_modules/` beside the worker. They must have no dependencies of their own.
   */
  packages: readonly string[];
}

/** Every worker a bundle may need (see espeak-engine.ts: it looks for `espeak-worker.mjs` beside itself). */
export const BUNDLE_WORKERS: readonly BundleWorker[] = [
  {
    startedBy: 'engines/speech/espeak-engine',
    entry: 'engines/speech/espeak-worker',
    file: 'espeak-worker.mjs',
    packages: ['@echogarden/espeak-ng-emscripten'],
  },
];

/** A file some module reads beside its bundle at run time, made when the bundles are built. */
export interface BundleDataFile {
  /** The module (under `lambdas/`, without extension) whose presence in a bundle calls for the file. */
  readBy: string;
  /** The file's name beside the bundle's `index.mjs`, where `readBy` looks for it. */
  file: string;
  /** The file's contents, made from the project's installed packages. */
  contents: () => string;
}

/** Every data file a bundle may need (see icon-catalog.ts: it reads its index beside itself when there is one). */
export const BUNDLE_DATA_FILES: readonly BundleDataFile[] = [
  {
    readBy: 'catalog/icon-catalog',
    file: ICON_INDEX_FILE,
    contents: () => JSON.stringify(iconIndexFromPackage()),
  },
];

/** The modules each output of an esbuild run includes, by absolute path. */
export function inputsByOutput(projectRoot: string, metafile: Metafile): Map<string, Set<string>> {
  return new Map(
    Object.entries(metafile.outputs).map(([output, { inputs }]) => [
      path.resolve(projectRoot, output),
      new Set(Object.keys(inputs).map((input) => path.resolve(projectRoot, input))),
    ]),
  );
}

/**
 * Writes the data files beside each bundle (an output of one esbuild run: `inputs` from
 * `inputsByOutput`) whose code includes the module that reads them, making each file once.
 */
export function addDataFiles(
  projectRoot: string,
  bundles: readonly string[],
  inputs: ReadonlyMap<string, ReadonlySet<string>>,
): void {
  for (const data of BUNDLE_DATA_FILES) {
    const reader = path.join(projectRoot, 'lambdas', `${data.readBy}.ts`);
    const readers = bundles.filter((bundle) => inputs.get(bundle)?.has(reader));
    if (readers.length === 0) continue;
    const contents = data.contents();
    for (const bundle of readers) writeFileSync(path.join(path.dirname(bundle), data.file), contents);
  }
}

/** Where the workers are built, under the bundle root, before they are copied into the bundles. */
const WORKER_OUTDIR = '.workers';

/** Entry points of the bundle workers, under `directory` of a bundle's output. */
export function workerEntryPoints(projectRoot: string, directory: string): Record<string, string> {
  return Object.fromEntries(
    BUNDLE_WORKERS.map((worker) => [
      `${directory}/${path.basename(worker.file, '.mjs')}`,
      path.join(projectRoot, 'lambdas', `${worker.entry}.ts`),
    ]),
  );
}

/** esbuild settings of every Lambda bundle (zip functions and the media image alike). */
export const LAMBDA_BUILD_OPTIONS = {
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  // The Lambda runtime the functions use (Runtime.NODEJS_24_X).
  target: 'node24',
  // Prefer packages' ESM builds: smaller bundles through tree shaking.
  mainFields: ['module', 'main'],
  // Whitespace and syntax only: identifiers stay readable in stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  legalComments: 'none',
  // CommonJS dependencies inside an ES module bundle still call `require` for Node built-ins. The
  // import is renamed: bundled modules may import `createRequire` themselves (espeak-engine.ts does),
  // and esbuild does not rename around the banner.
  banner: {
    js: "import { createRequire as __bannerCreateRequire } from 'node:module'; const require = __bannerCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
} as const satisfies BuildOptions;

export interface HandlerBundlesProps {
  /**
   * Entry modules to bundle, as paths under `lambdas/` without extension (`api/folders/list-folders`).
   * Each must exist as `lambdas/<module>.ts` and export `handler`.
   */
  modules: readonly string[];
  /**
   * Bundles whose entry is generated, by bundle name (`api/folders`): the entry's source, an ES module
   * exporting `handler` that imports by absolute path. Written beside the bundles when they are built.
   * @default {}
   */
  generatedEntries?: Readonly<Record<string, string>>;
  /** Directory holding `lambdas/`. @default process.cwd(), the project root under `cdk synth` */
  projectRoot?: string;
}

export class HandlerBundles extends Construct {
  private readonly bundleRoot: string | undefined;
  private readonly modules: ReadonlySet<string>;
  private readonly codeByStackAndModule = new Map<string, Code>();
  private readonly unbundledCode = Code.fromInline(
    "export const handler = async () => { throw new Error('This function was synthesized without bundling (tests, cdk ls) and cannot run'); };",
  );

  constructor(scope: Construct, id: string, props: HandlerBundlesProps) {
    super(scope, id);
    const projectRoot = props.projectRoot ?? process.cwd();
    const generatedEntries = props.generatedEntries ?? {};
    this.modules = new Set([...props.modules, ...Object.keys(generatedEntries)]);
    const entryPoints: Record<string, string> = {};
    for (const module of this.modules) {
      const nested = [...this.modules].find((other) => other.startsWith(`${module}/`));
      if (nested)
        throw new Error(`Entry ${module} is a directory prefix of entry ${nested}: their bundles would nest`);
    }
    for (const module of props.modules) {
      const source = path.join(projectRoot, 'lambdas', `${module}.ts`);
      if (!existsSync(source)) {
        throw new Error(`Lambda entry lambdas/${module}.ts does not exist (named by the stack)`);
      }
      entryPoints[`${module}/index`] = source;
    }

    if (!Stack.of(this).bundlingRequired) return;
    const outdir = Stage.of(this)?.outdir;
    if (!outdir) throw new Error('HandlerBundles must be created inside an App or Stage');
    // Absolute: the CLI passes a relative outdir (cdk.out), and esbuild's metafile paths are resolved below.
    this.bundleRoot = path.resolve(outdir, '.bundles');
    rmSync(this.bundleRoot, { recursive: true, force: true });
    mkdirSync(this.bundleRoot, { recursive: true });
    // Outside the bundle root: only bundles go into assets.
    const generatedRoot = path.resolve(outdir, '.bundle-entries');
    rmSync(generatedRoot, { recursive: true, force: true });
    for (const [bundle, source] of Object.entries(generatedEntries)) {
      const entry = path.join(generatedRoot, `${bundle}.mjs`);
      mkdirSync(path.dirname(entry), { recursive: true });
      writeFileSync(entry, source);
      entryPoints[`${bundle}/index`] = entry;
    }
    Object.assign(entryPoints, workerEntryPoints(projectRoot, WORKER_OUTDIR));
    const { metafile } = buildSync({
      absWorkingDir: projectRoot,
      entryPoints,
      external: BUNDLE_WORKERS.flatMap((worker) => worker.packages),
      metafile: true,
      outdir: this.bundleRoot,
      ...LAMBDA_BUILD_OPTIONS,
    });
    const inputs = inputsByOutput(projectRoot, metafile);
    this.addWorkers(projectRoot, this.bundleRoot, inputs);
    const bundleRoot = this.bundleRoot;
    addDataFiles(
      projectRoot,
      [...this.modules].map((module) => path.join(bundleRoot, module, 'index.mjs')),
      inputs,
    );
  }

  /** Copies each worker, and the packages it loads, into every bundle that starts it. */
  private addWorkers(
    projectRoot: string,
    bundleRoot: string,
    inputs: ReadonlyMap<string, ReadonlySet<string>>,
  ): void {
    for (const worker of BUNDLE_WORKERS) {
      const starter = path.join(projectRoot, 'lambdas', `${worker.startedBy}.ts`);
      const built = path.join(bundleRoot, WORKER_OUTDIR, worker.file);
      const bundles = [...this.modules].filter((module) =>
        inputs.get(path.join(bundleRoot, module, 'index.mjs'))?.has(starter),
      );
      if (bundles.length === 0) continue;
      const workerSource = path.join(projectRoot, 'lambdas', `${worker.entry}.ts`);
      const packages = worker.packages.map((name) => ({ name, dir: packageDir(workerSource, name) }));
      for (const module of bundles) {
        const bundleDir = path.join(bundleRoot, module);
        copyFileSync(built, path.join(bundleDir, worker.file));
        for (const { name, dir } of packages) {
          cpSync(dir, path.join(bundleDir, 'node_modules', name), { recursive: true, dereference: true });
        }
      }
    }
    rmSync(path.join(bundleRoot, WORKER_OUTDIR), { recursive: true, force: true });
  }

  /** Code of `module`'s bundle for a function in `scope`'s stack (an asset belongs to one stack). */
  codeFor(scope: IConstruct, module: string): Code {
    if (!this.modules.has(module)) throw new Error(`Entry ${module} was not declared to HandlerBundles`);
    if (!this.bundleRoot) return this.unbundledCode;
    const key = `${Stack.of(scope).node.path}|${module}`;
    let code = this.codeByStackAndModule.get(key);
    if (!code) {
      code = Code.fromAsset(path.join(this.bundleRoot, module));
      this.codeByStackAndModule.set(key, code);
    }
    return code;
  }
}

/** The installed directory of `name` as `from` resolves it; refuses a package with dependencies. */
function packageDir(from: string, name: string): string {
  const manifest = createRequire(from).resolve(`${name}/package.json`);
  const { dependencies = {} } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  if (Object.keys(dependencies).length > 0) {
    throw new Error(`${name} has dependencies of its own; copying it alone into a bundle would not work`);
  }
  return path.dirname(manifest);
}
