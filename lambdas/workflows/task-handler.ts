/**
 * The shape of every Step Functions task function: the state's input, checked with zod, in; the
 * step's result out. A thrown error fails the Task state with the error's `name` as its `Error`, so
 * the workflow's Retry and Catch decide what happens next; it is logged here without the input,
 * which may carry customer data.
 */
import type { z } from 'zod';
import { logger } from '../core/observability.js';

export type TaskHandler<Result> = (event: unknown) => Promise<Result>;

export function taskHandler<Schema extends z.ZodType, Result>(
  step: string,
  schema: Schema,
  run: (input: z.output<Schema>) => Promise<Result>,
): TaskHandler<Result> {
  return async (event) => {
    const input = schema.parse(event);
    try {
      return await run(input);
    } catch (error) {
      logger.warn('Workflow step failed', {
        step,
        errorName: (error as Error).name,
        errorMessage: (error as Error).message,
      });
      throw error;
    }
  };
}
