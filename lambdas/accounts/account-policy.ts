/**
 * What an administrator restricts for a workspace (`WorkspaceRestrictions`, set with the admin CLI),
 * turned into the spec's refusals: 403 `phone_verification_required`, `api_endpoint_disabled` and
 * `ai_vendor_access_restricted`. (Blocked voices are refused where a voice is resolved:
 * voices/voice-resolution.ts.)
 */
import { config, modelEnginesConfig } from '../core/config.js';
import { ForbiddenError } from '../core/errors.js';
import type { AiVendor, WorkspaceRestrictions } from './workspaces.js';

/** What a job may ask of an engine that can be a third-party AI service. */
export const ENGINE_CAPABILITIES = {
  speech: 'speech synthesis',
  speechRecognition: 'speech recognition',
  translation: 'translation',
  textGeneration: 'text generation',
  mediaGeneration: 'image and video generation',
} as const;
export type EngineCapability = keyof typeof ENGINE_CAPABILITIES;

/** The vendor this deployment's engine for `capability` sends content to; undefined for a local engine. */
export function vendorOf(capability: EngineCapability): AiVendor | undefined {
  const engines = modelEnginesConfig();
  switch (capability) {
    case 'speech':
      return config().speechEngine === 'polly' ? 'amazon_polly' : undefined;
    case 'speechRecognition':
      return (
        { openai: 'openai_compatible', transcribe: 'amazon_transcribe' } as const satisfies Record<
          string,
          AiVendor
        >
      )[engines.speechRecognition.engine as 'openai' | 'transcribe'];
    case 'translation':
      return ({ openai: 'openai_compatible', translate: 'amazon_translate' } as const)[
        engines.translation.engine as 'openai' | 'translate'
      ];
    case 'textGeneration':
      return ({ openai: 'openai_compatible', bedrock: 'amazon_bedrock' } as const)[
        engines.textGeneration.engine as 'openai' | 'bedrock'
      ];
    case 'mediaGeneration':
      return ({ openai: 'openai_compatible', bedrock: 'amazon_bedrock' } as const)[
        engines.mediaGeneration.engine as 'openai' | 'bedrock'
      ];
  }
}

/**
 * Refuses a job whose engines may send the workspace's content to a vendor its policy blocks. A job
 * lists every capability it may use (recognition, say, only when no script is known), so the check
 * is conservative: it refuses what could reach the vendor, never lets it through.
 * @throws ForbiddenError 403 `ai_vendor_access_restricted` naming the vendor and what needed it
 */
export function assertVendorsAllowed(
  restrictions: WorkspaceRestrictions | undefined,
  capabilities: readonly EngineCapability[],
): void {
  const blocked = new Set(restrictions?.blocked_ai_vendors ?? []);
  if (blocked.size === 0) return;
  for (const capability of capabilities) {
    const vendor = vendorOf(capability);
    if (vendor && blocked.has(vendor)) {
      throw new ForbiddenError(
        `This workspace's policy blocks ${vendor}, which this deployment uses for ${ENGINE_CAPABILITIES[capability]}; nothing was created or charged. An administrator can lift it (admin CLI: workspace update <id> --unblock-vendor ${vendor}).`,
        'ai_vendor_access_restricted',
      );
    }
  }
}

/** Routes a workspace awaiting phone verification may still call: reading its own account. */
const ACCOUNT_READS: ReadonlySet<string> = new Set(['UserMeGet', 'LegacyUserMeGet', 'UsageGet']);

/**
 * The 403 a restricted workspace gets for calling `operationId`, if any: an account awaiting phone
 * verification may only read its account; a disabled endpoint is closed to the workspace.
 */
export function endpointRefusal(
  restrictions: WorkspaceRestrictions | undefined,
  operationId: string,
): ForbiddenError | undefined {
  if (restrictions?.phone_verification_required && !ACCOUNT_READS.has(operationId)) {
    return new ForbiddenError(
      'This account must complete phone (SMS) verification before it can use the API; only the account itself can be read until then.',
      'phone_verification_required',
    );
  }
  if (restrictions?.disabled_endpoints?.includes(operationId)) {
    return new ForbiddenError(
      `This endpoint (${operationId}) is not available for this account; an administrator can enable it.`,
      'api_endpoint_disabled',
    );
  }
  return undefined;
}
