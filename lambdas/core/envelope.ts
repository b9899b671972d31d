import type { ErrorDetail } from './errors.js';

/** The spec's error envelope. */
export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    param: string | null;
    doc_url: string | null;
    errors?: ErrorDetail[];
  };
}

/** The spec's list envelope. */
export interface ListEnvelope<T> {
  data: T[];
  has_more: boolean;
  next_token: string | null;
}

/** Documentation page for an error code, rooted at the project's error docs. */
export function docUrlFor(code: string, docBaseUrl: string): string {
  return `${docBaseUrl.replace(/\/$/, '')}#${code}`;
}

export function errorEnvelope(
  code: string,
  message: string,
  param: string | null,
  docBaseUrl: string,
  errors?: ErrorDetail[],
): ErrorEnvelope {
  return {
    error: { code, message, param, doc_url: docUrlFor(code, docBaseUrl), ...(errors ? { errors } : {}) },
  };
}
