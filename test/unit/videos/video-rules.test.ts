import { describe, expect, it } from 'vitest';
import { capResolution, resolutionAllowed, videoCredits } from '../../../lambdas/billing/plans.js';
import { ConflictError } from '../../../lambdas/core/errors.js';
import { frameSize } from '../../../lambdas/videos/render-spec.js';
import { scenesDocument } from '../../../lambdas/videos/video-views.js';
import type { VideoRecord } from '../../../lambdas/videos/videos.js';

describe('credits of a video', () => {
  it('charges every started minute, at least one, twice as much at 4k', () => {
    expect(videoCredits(0, '720p')).toBe(1);
    expect(videoCredits(59.9, '1080p')).toBe(1);
    expect(videoCredits(60, '720p')).toBe(1);
    expect(videoCredits(60.5, '720p')).toBe(2);
    expect(videoCredits(61, '4k')).toBe(4);
  });

  it('allows resolutions up to the plan and caps defaults instead of refusing them', () => {
    expect(resolutionAllowed('free', '720p')).toBe(true);
    expect(resolutionAllowed('free', '1080p')).toBe(false);
    expect(resolutionAllowed('creator', '4k')).toBe(false);
    expect(resolutionAllowed('pro', '4k')).toBe(true);
    expect(capResolution('free', '1080p')).toBe('720p');
    expect(capResolution('team', '1080p')).toBe('1080p');
  });
});

describe('frame size', () => {
  it('anchors the short edge to the tier and follows the aspect ratio', () => {
    expect(frameSize('720p', '16:9')).toEqual({ width: 1280, height: 720 });
    expect(frameSize('1080p', '9:16')).toEqual({ width: 1080, height: 1920 });
    expect(frameSize('4k', '16:9')).toEqual({ width: 3840, height: 2160 });
    expect(frameSize('720p', '1:1')).toEqual({ width: 720, height: 720 });
    expect(frameSize('720p', '4:5')).toEqual({ width: 720, height: 900 });
    expect(frameSize('1080p', '5:4')).toEqual({ width: 1350, height: 1080 });
  });

  it('follows the presenter for auto, within the tier, and falls back to 16:9', () => {
    expect(frameSize('720p', 'auto', { width: 600, height: 800 })).toEqual({ width: 720, height: 960 });
    expect(frameSize('720p', 'auto', { width: 4000, height: 1000 })).toEqual({ width: 1280, height: 720 });
    expect(frameSize('720p', 'auto')).toEqual({ width: 1280, height: 720 });
  });
});

describe('scenes document', () => {
  const video = {
    video_id: 'v1',
    status: 'pending',
    scenes_ready: false,
    title: null,
    aspect_ratio: '16:9',
    resolution: '720p',
    render: { scenes: [], captions_requested: false, brand_glossary_id: null },
  } as unknown as VideoRecord;

  it('is 409 resource_not_ready until the render has resolved the scenes', () => {
    expect(() => scenesDocument(video)).toThrow(ConflictError);
    try {
      scenesDocument(video);
    } catch (error) {
      expect((error as ConflictError).code).toBe('resource_not_ready');
    }
    expect(scenesDocument({ ...video, status: 'processing', scenes_ready: true })).toEqual({
      video_id: 'v1',
      edit_version: '1',
      video: {
        title: null,
        aspect_ratio: '16:9',
        resolution: '720p',
        caption: null,
        brand_glossary_id: null,
      },
      scenes: [],
    });
  });
});
