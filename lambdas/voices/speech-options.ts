/** Limits and accepted values of `POST /v3/voices/speech`, shared by its schema and its implementation. */

/** Longest text of one request (the reference's limit), SSML markup included. */
export const MAX_SPEECH_TEXT_LENGTH = 5000;

/**
 * `engine` values beyond this deployment's engine name and `default`: `starfish`, the reference's name
 * for its own engine, accepted and deprecated (it means the deployment's engine).
 */
export const DEPRECATED_SPEECH_ENGINES = ['starfish'] as const;
