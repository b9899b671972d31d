/**
 * The filters that join scene pictures, by cuts or by a transition laid out by transition-timeline.ts:
 * each picture padded with its held frames (`tpad`), split into the frames it shows alone and those it
 * lends to the transitions on either side (`split` + `trim`), each transition drawn from its two parts,
 * and everything concatenated in order. The composition engine's graph and the style previews join
 * their scenes with it.
 *
 * ffmpeg 4.1 (the npm build) has no `xfade`, so the transitions are drawn with `blend` expressions over
 * both pictures (per plane: `SW` tells luma, 1, from 4:2:0 chroma, 0.5, whose neutral is 128) and, for
 * the slide, `hstack` + a moving `crop`. Progress runs `(k + 1) / (D + 1)` over the frames `k` of `D`, so no
 * frame of a transition is either picture alone. Pictures must be 4:2:0 YUV of one size (the fades to
 * black and white use its levels: black 16, white 235).
 */
import { type SceneTransition, TRANSITION_KINDS, type TransitionKind } from './composition-engine.js';
import { transitionFrameCount, transitionTimeline } from './transition-timeline.js';

/** Progress inside blend expressions (stored first in variable 0). */
const P = 'ld(0)';

/** The blend expression of a transition: `A` the leaving picture, `B` the entering one. */
function blendExpression(kind: Exclude<TransitionKind, 'cut' | 'slideleft'>): string {
  switch (kind) {
    case TRANSITION_KINDS.fade:
      return `A+(B-A)*${P}`;
    case TRANSITION_KINDS.dissolve:
      // A fixed random-looking threshold per 2x2 luma block (and its chroma sample): the block shows the
      // entering picture once progress passes it.
      return `st(1,sin(floor(X/SW/2)*12.9898+floor(Y/SH/2)*78.233)*43758.5453);if(lt(ld(1)-floor(ld(1)),${P}),B,A)`;
    case TRANSITION_KINDS.fadeblack:
    case TRANSITION_KINDS.fadewhite: {
      const level = kind === TRANSITION_KINDS.fadeblack ? 16 : 235;
      return `st(1,if(eq(SW,1),${level},128));if(lt(${P},0.5),ld(1)+(A-ld(1))*(1-2*${P}),ld(1)+(B-ld(1))*(2*${P}-1))`;
    }
    case TRANSITION_KINDS.wipeleft:
      return `if(gte(X,W*(1-${P})),B,A)`;
    case TRANSITION_KINDS.circleopen:
      return `if(lte(hypot(X-W/2,Y-H/2),${P}*hypot(W/2,H/2)),B,A)`;
  }
}

/**
 * The filter drawing a transition of `frames` frames at `fps` from `[from]` to `[to]` into `[output]`.
 * Progress is counted from the frames' time (both parts start at 0), not the filters' frame counters,
 * which do not all start at 0 in this build.
 */
function transitionFilter(
  kind: TransitionKind,
  frames: number,
  fps: number,
  from: string,
  to: string,
  output: string,
) {
  const progress = (time: string) => `(round(${time}*${fps})+1)/${frames + 1}`;
  if (kind === TRANSITION_KINDS.cut) throw new Error('a cut has no transition filter');
  if (kind === TRANSITION_KINDS.slideleft)
    // Both pictures side by side, a frame-wide window sliding over them (even offsets: 4:2:0).
    return `[${from}][${to}]hstack=inputs=2,crop=w=iw/2:h=ih:x='2*floor(iw/2*${progress('t')}/2)':y=0[${output}]`;
  return `[${from}][${to}]blend=all_expr='st(0,${progress('T')});${blendExpression(kind)}'[${output}]`;
}

export interface PictureJoin {
  /** Labels of the scenes' pictures, in order, each exactly `frames[i]` frames at `fps`. */
  pictures: readonly string[];
  frames: readonly number[];
  fps: number;
  /** @default cuts */
  transition?: SceneTransition;
  /** Whether boundary `j` (between picture j and j + 1) may take the transition. @default all */
  joinable?: (boundary: number) => boolean;
  /** Prefix of the labels the join makes. */
  label: string;
  /** Label of the joined picture. */
  output: string;
}

/** The filters joining `pictures` into `[output]`, as long as their frames together. */
export function joinPictureFilters(join: PictureJoin): string[] {
  const { pictures, fps, label, output } = join;
  const transitionFrames = transitionFrameCount(join.transition, fps);
  const { boundaries, spans } = transitionTimeline(join.frames, transitionFrames, join.joinable);
  const kind = join.transition?.kind ?? TRANSITION_KINDS.cut;
  if (pictures.length === 1) return [`[${pictures[0]}]null[${output}]`];
  if (boundaries.every((frames) => frames === 0))
    return [
      `${pictures.map((picture) => `[${picture}]`).join('')}concat=n=${pictures.length}:v=1:a=0[${output}]`,
    ];

  const graph: string[] = [];
  const pieces: string[] = [];
  spans.forEach((span, index) => {
    let source = pictures[index] as string;
    if (span.head > 0 || span.tail > 0) {
      graph.push(
        `[${source}]tpad=start=${span.head}:start_mode=clone:stop=${span.tail}:stop_mode=clone[${label}held${index}]`,
      );
      source = `${label}held${index}`;
    }
    // `round`: setpts truncates, and N/fps/TB lands just under some whole numbers (3/10/0.1 gives 2).
    const parts = (
      [
        ['enter', span.enter],
        ['alone', span.alone],
        ['leave', span.leave],
      ] as const
    ).filter(([, frames]) => frames > 0);
    const partLabel = (part: string) => `${label}${part}${index}`;
    if (parts.length === 1) {
      graph.push(`[${source}]null[${partLabel(parts[0]?.[0] as string)}]`);
    } else {
      graph.push(
        `[${source}]split=${parts.length}${parts.map(([part]) => `[${partLabel(part)}in]`).join('')}`,
      );
      let start = 0;
      for (const [part, frames] of parts) {
        graph.push(
          `[${partLabel(part)}in]trim=start_frame=${start}:end_frame=${start + frames},setpts=round(N/${fps}/TB)[${partLabel(part)}]`,
        );
        start += frames;
      }
    }
    if (span.enter > 0) {
      const transitionLabel = `${label}transition${index - 1}`;
      graph.push(
        transitionFilter(
          kind,
          span.enter,
          fps,
          `${label}leave${index - 1}`,
          partLabel('enter'),
          transitionLabel,
        ),
      );
      pieces.push(transitionLabel);
    }
    if (span.alone > 0) pieces.push(partLabel('alone'));
  });
  graph.push(`${pieces.map((piece) => `[${piece}]`).join('')}concat=n=${pieces.length}:v=1:a=0[${output}]`);
  return graph;
}
