/**
 * Voice clone slots: how many cloned voices a workspace may have at once, by plan. The spec names
 * slots ("deletes a voice clone you own and frees its clone slot") but not their number; these are
 * this service's, documented in the README ("Voices"). A clone takes a slot when it is created and
 * gives it back when it fails or is deleted; designed voices take none.
 *
 * The count lives in one item per workspace (`WS#<workspace>` / `VOICE_CLONE_SLOTS`, attribute
 * `used`), changed only in transactions with the voice's own item (workspace-voices.ts).
 */
import type { Plan } from '../accounts/workspaces.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';

export const CLONE_SLOTS_BY_PLAN: Readonly<Record<Plan, number>> = {
  free: 1,
  starter: 3,
  creator: 5,
  pro: 10,
  team: 20,
  enterprise: 50,
  business_plus: 50,
};

export function cloneSlotLimit(plan: Plan): number {
  return CLONE_SLOTS_BY_PLAN[plan] ?? CLONE_SLOTS_BY_PLAN.free;
}

export const cloneSlotsKey = (workspaceId: string) => ({
  pk: keys.workspacePartition(workspaceId),
  sk: RESOURCE_TYPES.voiceCloneSlots,
});
