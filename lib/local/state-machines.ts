/** Loads every `state-machines/*.asl.json` into the local Step Functions, as the stack deploys them. */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { StepFunctionsEmulator } from './emulators/index.js';

export const STATE_MACHINES_DIRECTORY = fileURLToPath(new URL('../../state-machines/', import.meta.url));

export async function loadStateMachines(
  stepFunctions: Pick<StepFunctionsEmulator, 'putStateMachine'>,
): Promise<string[]> {
  const files = (await readdir(STATE_MACHINES_DIRECTORY).catch(() => [] as string[])).filter((file) =>
    file.endsWith('.asl.json'),
  );
  const arns: string[] = [];
  for (const file of files.sort()) {
    const definition = await readFile(`${STATE_MACHINES_DIRECTORY}${file}`, 'utf8');
    arns.push(await stepFunctions.putStateMachine({ name: file.replace(/\.asl\.json$/, ''), definition }));
  }
  return arns;
}
