/**
 * Webhook endpoints of a workspace. The secret is returned on create and on rotate only; every other
 * read shows `secret: null`. Rotation replaces the stored secret, so the old one stops signing at once.
 */

import { ConflictError, InvalidParameterError } from '../core/errors.js';
import { ID_PATTERN, newId } from '../core/ids.js';
import { checkOutboundUrl, OutboundUrlError, outboundPolicy } from '../core/network-guard.js';
import {
  deleteExistingItem,
  getItem,
  putNewItem,
  queryAll,
  queryWorkspaceResources,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { decryptSecret, encryptSecret, newEndpointSecret } from './endpoint-secrets.js';

export const ENDPOINT_STATUS = { enabled: 'enabled', disabled: 'disabled' } as const;
export type EndpointStatus = (typeof ENDPOINT_STATUS)[keyof typeof ENDPOINT_STATUS];

/** The endpoint as the API shows it. */
export interface WebhookEndpoint {
  endpoint_id: string;
  url: string;
  /** Subscribed event types; null: all of them. */
  events: string[] | null;
  entity_id: string | null;
  status: EndpointStatus;
  /** ISO 8601 UTC, as the spec says for endpoints. */
  created_at: string;
  secret: string | null;
}

export interface EndpointItem extends Omit<WebhookEndpoint, 'secret'> {
  pk: string;
  sk: string;
  updated_at: string;
  secret_ciphertext: string;
  /** Increments on every rotation; deliveries record which secret signed them. */
  secret_version: number;
}

const endpointKey = (workspaceId: string, endpointId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.webhookEndpoint, endpointId);

function toEndpoint(item: EndpointItem, secret: string | null = null): WebhookEndpoint {
  return {
    endpoint_id: item.endpoint_id,
    url: item.url,
    events: item.events,
    entity_id: item.entity_id,
    status: item.status,
    created_at: item.created_at,
    secret,
  };
}

/** The URL must be public HTTPS (loopback and http only with the local-development setting). */
export function validateEndpointUrl(url: string): string {
  try {
    return checkOutboundUrl(url, outboundPolicy()).toString();
  } catch (error) {
    if (error instanceof OutboundUrlError) {
      throw new InvalidParameterError(
        `\`url\` ${error.message}: webhook endpoints must be public HTTPS URLs.`,
        'url',
      );
    }
    throw error;
  }
}

export interface NewEndpoint {
  url: string;
  events?: string[] | null | undefined;
  entity_id?: string | undefined;
}

export async function createEndpoint(workspaceId: string, input: NewEndpoint): Promise<WebhookEndpoint> {
  const url = validateEndpointUrl(input.url);
  const endpointId = newId();
  const secret = newEndpointSecret();
  const now = new Date().toISOString();
  const item: EndpointItem = {
    ...endpointKey(workspaceId, endpointId),
    endpoint_id: endpointId,
    url,
    events: input.events ? [...new Set(input.events)] : null,
    entity_id: input.entity_id ?? null,
    status: ENDPOINT_STATUS.enabled,
    created_at: now,
    updated_at: now,
    secret_ciphertext: await encryptSecret(workspaceId, endpointId, secret),
    secret_version: 1,
  };
  if (!(await putNewItem({ ...item }))) throw new Error(`Endpoint id collision: ${endpointId}`);
  return toEndpoint(item, secret);
}

/**
 * The secret to show again when a create is replayed: the endpoint's first secret while it has not
 * been rotated, else null (after a rotation only the rotation's response ever shows a secret).
 */
export async function revealSecretOnReplay(workspaceId: string, endpointId: string): Promise<string | null> {
  const item = await getEndpointItem(workspaceId, endpointId);
  if (item?.secret_version !== 1) return null;
  return decryptSecret(workspaceId, endpointId, item.secret_ciphertext);
}

/** The stored endpoint; `consistent` for reads that must see the latest rotation (deliveries). */
export async function getEndpointItem(
  workspaceId: string,
  endpointId: string,
  consistent = false,
): Promise<EndpointItem | undefined> {
  if (!ID_PATTERN.test(endpointId)) return undefined;
  return getItem<EndpointItem>(endpointKey(workspaceId, endpointId), consistent);
}

/** Every endpoint of the workspace (the dispatcher's fan-out reads them all). */
export async function listEndpointItems(workspaceId: string, consistent = false): Promise<EndpointItem[]> {
  return queryAll<EndpointItem>(
    keys.workspacePartition(workspaceId),
    `${RESOURCE_TYPES.webhookEndpoint}#`,
    consistent,
  );
}

/**
 * Disables an endpoint whose receiver answered 410 Gone, unless its URL changed since that attempt
 * (the owner already moved it). Deliveries to a disabled endpoint stop; `PATCH` with
 * `status: enabled` turns it back on.
 */
export async function disableGoneEndpoint(
  workspaceId: string,
  endpointId: string,
  url: string,
): Promise<void> {
  await updateExistingItem(
    endpointKey(workspaceId, endpointId),
    { status: ENDPOINT_STATUS.disabled, updated_at: new Date().toISOString() },
    [],
    { url },
  );
}

export async function listEndpoints(workspaceId: string, limit: number, token?: string) {
  const page = await queryWorkspaceResources<EndpointItem>(
    workspaceId,
    RESOURCE_TYPES.webhookEndpoint,
    'WebhookEndpointsList',
    limit,
    token,
  );
  return { items: page.items.map((item) => toEndpoint(item)), nextToken: page.nextToken };
}

export interface EndpointChanges {
  url?: string | undefined;
  /** Replaces the subscription entirely; null subscribes to every type. */
  events?: string[] | null | undefined;
  /** `enabled` turns deliveries back on (after a 410 disabled the endpoint); `disabled` pauses them. */
  status?: EndpointStatus | undefined;
}

export async function updateEndpoint(
  workspaceId: string,
  endpointId: string,
  changes: EndpointChanges,
): Promise<WebhookEndpoint | undefined> {
  if (!ID_PATTERN.test(endpointId)) return undefined;
  const set: Record<string, unknown> = { updated_at: new Date().toISOString() };
  if (changes.url !== undefined) set.url = validateEndpointUrl(changes.url);
  if (changes.events !== undefined)
    set.events = changes.events === null ? null : [...new Set(changes.events)];
  if (changes.status !== undefined) set.status = changes.status;
  const item = await updateExistingItem<EndpointItem>(endpointKey(workspaceId, endpointId), set);
  return item ? toEndpoint(item) : undefined;
}

export async function deleteEndpoint(workspaceId: string, endpointId: string): Promise<boolean> {
  if (!ID_PATTERN.test(endpointId)) return false;
  return deleteExistingItem(endpointKey(workspaceId, endpointId));
}

export async function rotateEndpointSecret(
  workspaceId: string,
  endpointId: string,
): Promise<{ endpoint_id: string; secret: string } | undefined> {
  const current = await getEndpointItem(workspaceId, endpointId);
  if (!current) return undefined;
  const secret = newEndpointSecret();
  const updated = await updateExistingItem<EndpointItem>(
    endpointKey(workspaceId, endpointId),
    {
      secret_ciphertext: await encryptSecret(workspaceId, endpointId, secret),
      secret_version: current.secret_version + 1,
      updated_at: new Date().toISOString(),
    },
    [],
    // Two rotations at once: only one secret may win, and only its caller may be told it.
    { secret_version: current.secret_version },
  );
  if (!updated) {
    throw new ConflictError('The secret was rotated by another request at the same time. Retry.', 'conflict');
  }
  return { endpoint_id: endpointId, secret };
}
