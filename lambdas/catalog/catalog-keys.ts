/**
 * Where the stock catalog's media live in the media bucket. They belong to no workspace: every
 * workspace reads them through presigned URLs, and only `publishCatalogMedia` writes them.
 */

/** Prefix of every catalog object; workspace media live under `workspaces/`, so the two never meet. */
export const CATALOG_PREFIX = 'catalog/';

export const catalogKeys = {
  /** The presenter: the figure on a transparent background, at the look's size (PNG). */
  portrait: (lookId: string) => `${CATALOG_PREFIX}avatars/${lookId}.png`,
  /** The same figure in front of its backdrop, for `preview_image_url` (PNG). */
  lookPreview: (lookId: string) => `${CATALOG_PREFIX}avatars/${lookId}-preview.png`,
  /**
   * The moving parts of the portrait (a mouth per viseme, the blink: sprite-art.ts), each cut to its
   * box and stacked top to bottom in one PNG (catalog-media.ts, `lookSpriteSheet`).
   */
  spriteSheet: (lookId: string) => `${CATALOG_PREFIX}avatars/${lookId}-sprites.png`,
  /** A sentence spoken by the voice, in its language (WAV). */
  voicePreview: (voiceId: string) => `${CATALOG_PREFIX}voices/${voiceId}.wav`,
} as const;

/**
 * Properties of the catalog custom resource that change what it does (the stack sets them, the
 * handler reads them): a new `PublicationNonce` publishes again; `FailDeployOnError: 'true'` fails the
 * deploy when the catalog cannot be published.
 */
export const CATALOG_RESOURCE_PROPERTIES = {
  publicationNonce: 'PublicationNonce',
  failDeployOnError: 'FailDeployOnError',
} as const;
