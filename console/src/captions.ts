/**
 * The API gives captions as SRT; browsers' `<track>` reads only WebVTT. The conversion is the header
 * and the decimal comma of the timestamps.
 */
export function srtToVtt(srt: string): string {
  const body = srt
    .replace(/\r\n?/g, '\n')
    .replace(/(\d{2}:\d{2}:\d{2}),(\d{3})/g, '$1.$2')
    .trim();
  return `WEBVTT\n\n${body}\n`;
}

/** A `blob:` URL of the WebVTT of the SRT at `url` (a presigned media URL). */
export async function captionTrackUrl(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`The captions could not be loaded (${response.status}).`);
  return URL.createObjectURL(new Blob([srtToVtt(await response.text())], { type: 'text/vtt' }));
}
