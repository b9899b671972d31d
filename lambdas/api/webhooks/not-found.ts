import { NotFoundError } from '../../core/errors.js';

export const endpointNotFound = (endpointId: string) =>
  new NotFoundError(`Webhook endpoint ${endpointId} not found.`, 'webhook_not_found', 'endpoint_id');
