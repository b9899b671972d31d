/**
 * The composition capability's public surface: the engine interface and errors, the reference ffmpeg
 * engine, media probing, the ffmpeg/ffprobe locations and captions. Job code imports from here.
 */
export * from './captions.js';
export * from './composition-engine.js';
export { ffmpegPath, ffprobePath } from './ffmpeg-binaries.js';
export * from './ffmpeg-composition-engine.js';
export * from './probe.js';
