/** The state the voice clone workflow passes to its steps. */
import { z } from 'zod';

export const cloneRef = { workspace_id: z.string().min(1), voice_id: z.string().min(1) };
