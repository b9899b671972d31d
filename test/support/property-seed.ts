/**
 * Every property test of the suite runs from one seed, so a failure is reproducible: fast-check prints
 * the seed and path of a counterexample, and `FC_SEED=<seed> npx vitest run <file>` replays it.
 * Change the default to explore new inputs; CI runs the default.
 */
import fc from 'fast-check';

const DEFAULT_SEED = 20_261_124;

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? DEFAULT_SEED) });
