import { InvalidParameterError } from '../../lambdas/core/errors.js';

/** The `InvalidParameterError` that `run` throws; fails the test when it throws nothing or another error. */
export function invalidParameterOf(run: () => unknown): InvalidParameterError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidParameterError) return error;
    throw error;
  }
  throw new Error('expected an InvalidParameterError');
}
