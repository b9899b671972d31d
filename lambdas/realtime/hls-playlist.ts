/**
 * The live HLS playlist of a realtime stream (RFC 8216): an `EVENT` playlist, so segments are only
 * ever appended and a player may seek back to the start, that ends with `#EXT-X-ENDLIST` once the
 * stream has ended. Every segment URI is a presigned URL of its object (the caller signs them), so a
 * player needs no credentials.
 */
export interface PlaylistSegment {
  uri: string;
  durationMs: number;
}

export function livePlaylist(
  segments: readonly PlaylistSegment[],
  targetDurationMs: number,
  ended: boolean,
): string {
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    '#EXT-X-PLAYLIST-TYPE:EVENT',
    // The longest segment rounded up to whole seconds, as the RFC asks; it never changes in a stream.
    `#EXT-X-TARGETDURATION:${Math.max(1, Math.ceil(targetDurationMs / 1000))}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
  ];
  for (const segment of segments) {
    lines.push(`#EXTINF:${(segment.durationMs / 1000).toFixed(3)},`, segment.uri);
  }
  if (ended) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}
