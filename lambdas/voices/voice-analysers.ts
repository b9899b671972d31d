/**
 * The voice analysis capability chosen by configuration (`VOICE_ANALYSIS_ENGINE`, see core/config.ts):
 * `yin` (the reference: ffmpeg decoding and the measures of voice-analysis.ts, the default) or
 * `test-double` (tests only, test-double-voice-analyser.ts). Jobs that measure recordings call
 * `voiceAnalyser().analyse(...)`; deriving a voice from the measures (`deriveVoice`) is pure and fast, and
 * has no double.
 */
import { config, type VoiceAnalysisEngineName } from '../core/config.js';
import { analyseRecordingDouble } from './test-double-voice-analyser.js';
import { type AnalyseOptions, analyseRecording, type RecordingAnalysis } from './voice-analysis.js';

export interface VoiceAnalyser {
  readonly name: VoiceAnalysisEngineName;
  /** As `analyseRecording`: never throws for a bad recording, only when the analysis cannot run. */
  analyse(path: string, options?: AnalyseOptions): Promise<RecordingAnalysis>;
}

/** The configured voice analyser; it holds nothing between recordings. */
export function voiceAnalyser(name: VoiceAnalysisEngineName = config().voiceAnalysisEngine): VoiceAnalyser {
  switch (name) {
    case 'yin':
      return { name, analyse: analyseRecording };
    case 'test-double':
      return { name, analyse: analyseRecordingDouble };
    default:
      throw new Error(`unknown voice analysis engine ${String(name satisfies never)}`);
  }
}
