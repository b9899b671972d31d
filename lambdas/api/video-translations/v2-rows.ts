/** The hosted API's `/v2` video-translate routes, for older clients: rows of the video-translations area. */
import type { row } from '../route-rows.js';

export const V2_ROWS: ReturnType<typeof row>[] = [];
