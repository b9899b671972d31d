/**
 * The filters that join scene pictures, by cuts or by a transition laid out by transition-timeline.ts:
 * each picture padded with its held frames (`tpad`), split into the frames it shows alone and those it
 * lends to the transitions on either side (`split` + `trim`), each transition drawn from its two parts,
 * and everything concatenated in order. The composition engine's graph and the style previews join
 * their scenes with it.
 *
 * ffmpeg 4.1 (the npm build) has no `xfade`, so the transitions are drawn with masks: a mix by a flat
 * progress level (`maskedmerge`: the fade, and the dips through a colour), a switch where progress passes
 * each pixel's place in an order (`threshold`: the wipe, the circle, the dissolve), and for the slide
 * `hstack` + a moving `crop`. Progress runs `(k + 1) / (D + 1)` over the frames `k` of `D`, so no frame
 * of a transition is either picture alone. Pictures must be 4:2:0 YUV of the given size.
 */
import { type SceneTransition, TRANSITION_KINDS, type TransitionKind } from './composition-engine.js';
import { transitionFrameCount, transitionTimeline } from './transition-timeline.js';

/** Where each pixel of a frame of `width`x`height` switches to the entering picture, from 0 (first) to 255. */
function switchOrder(kind: 'dissolve' | 'wipeleft' | 'circleopen'): string {
  switch (kind) {
    case TRANSITION_KINDS.dissolve:
      // A fixed random-looking order per 2x2 luma block (and its chroma sample).
      return '255*(st(0,sin(floor(X/SW/2)*12.9898+floor(Y/SH/2)*78.233)*43758.5453)-floor(ld(0)))';
    case TRANSITION_KINDS.wipeleft:
      return '255*(1-X/W)';
    case TRANSITION_KINDS.circleopen:
      return '255*hypot(X-W/2,Y-H/2)/hypot(W/2,H/2)';
  }
}

interface TransitionDraw {
  kind: TransitionKind;
  frames: number;
  fps: number;
  width: number;
  height: number;
  from: string;
  to: string;
  output: string;
  label: string;
  /** For the kinds with a switch order: a label of its one frame (`switchOrderFilter`), used up here. */
  order?: string;
}

/** The kinds whose pixels switch in an order (`threshold` against `switchOrder`). */
const ORDERED_KINDS: readonly TransitionKind[] = [
  TRANSITION_KINDS.dissolve,
  TRANSITION_KINDS.wipeleft,
  TRANSITION_KINDS.circleopen,
];

/**
 * One frame of a kind's switch order, computed once per join (its expression is evaluated per pixel),
 * split to `count` labels `[${label}${i}]` for the transitions to loop.
 */
function switchOrderFilter(
  kind: 'dissolve' | 'wipeleft' | 'circleopen',
  size: { width: number; height: number; fps: number },
  label: string,
  count: number,
): string {
  const order = switchOrder(kind);
  const outputs = Array.from({ length: count }, (_, index) => `[${label}${index}]`).join('');
  return `color=c=black:s=${size.width}x${size.height}:r=${size.fps},format=yuv420p,trim=end_frame=1,geq=lum='${order}':cb='${order}':cr='${order}',split=${count}${outputs}`;
}

/**
 * The filters drawing a transition from `[from]` to `[to]` (both `frames` frames from time 0) into
 * `[output]`. Per frame they only merge planes by masks (`maskedmerge`, `threshold`: integer work);
 * whatever needs an expression is evaluated on one frame (the order in which pixels switch, `geq`) or
 * on a 2x2 frame scaled up (the progress level), never per pixel of every frame, which costs a quarter
 * of a second per 720p frame. Progress is counted from the frames' time, not the filters' frame
 * counters, which do not all start at 0 in this build.
 */
function transitionFilters(draw: TransitionDraw): string[] {
  const { kind, frames, fps, width, height, from, to, output, label } = draw;
  const progress = `(round(T*${fps})+1)/${frames + 1}`;
  const timed = `setpts=round(N/${fps}/TB)`;
  /** A flat frame per transition frame, every plane at 255 × `levelOf(progress)`. */
  const level = (name: string, levelOf: (progress: string) => string) => {
    const value = `255*${levelOf(progress)}`;
    return `color=c=black:s=2x2:r=${fps},format=yuv420p,trim=end_frame=${frames},geq=lum='${value}':cb='${value}':cr='${value}',scale=${width}:${height}:flags=neighbor,setsar=1,${timed}[${name}]`;
  };
  const flat = (name: string, color: string) =>
    `color=c=${color}:s=${width}x${height}:r=${fps},format=yuv420p,trim=end_frame=${frames},${timed}[${name}]`;
  switch (kind) {
    case TRANSITION_KINDS.cut:
      throw new Error('a cut has no transition filter');
    case TRANSITION_KINDS.slideleft:
      // Both pictures side by side, a frame-wide window sliding over them (even offsets: 4:2:0).
      return [
        `[${from}][${to}]hstack=inputs=2,crop=w=iw/2:h=ih:x='2*floor(iw/2*(round(t*${fps})+1)/${frames + 1}/2)':y=0[${output}]`,
      ];
    case TRANSITION_KINDS.fade:
      return [level(`${label}level`, (p) => p), `[${from}][${to}][${label}level]maskedmerge[${output}]`];
    case TRANSITION_KINDS.fadeblack:
    case TRANSITION_KINDS.fadewhite:
      // Into the colour over the first half, out of it over the second.
      return [
        flat(`${label}colour`, kind === TRANSITION_KINDS.fadeblack ? 'black' : 'white'),
        level(`${label}into`, (p) => `min(1,2*${p})`),
        level(`${label}out`, (p) => `max(0,2*${p}-1)`),
        `[${from}][${label}colour][${label}into]maskedmerge[${label}dipped]`,
        `[${label}dipped][${to}][${label}out]maskedmerge[${output}]`,
      ];
    default:
      // The entering picture wherever progress has passed the pixel's place in the order.
      if (!draw.order) throw new Error(`a ${kind} transition needs its switch order`);
      return [
        level(`${label}level`, (p) => p),
        `[${draw.order}]loop=loop=${frames - 1}:size=1:start=0,${timed}[${label}order]`,
        // `threshold` picks its third input where the first is below the second, else its fourth.
        `[${label}order][${label}level][${to}][${from}]threshold[${output}]`,
      ];
  }
}

export interface PictureJoin {
  /** Labels of the scenes' pictures, in order, each exactly `frames[i]` frames at `fps`. */
  pictures: readonly string[];
  frames: readonly number[];
  fps: number;
  /** Size of the pictures. */
  width: number;
  height: number;
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
  const transitions = boundaries.filter((frames) => frames > 0).length;
  let ordersUsed = 0;
  if (ORDERED_KINDS.includes(kind))
    graph.push(
      switchOrderFilter(
        kind as Parameters<typeof switchOrder>[0],
        { ...join, fps },
        `${label}order`,
        transitions,
      ),
    );
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
        ...transitionFilters({
          kind,
          frames: span.enter,
          fps,
          width: join.width,
          height: join.height,
          from: `${label}leave${index - 1}`,
          to: partLabel('enter'),
          output: transitionLabel,
          label: `${label}t${index - 1}`,
          ...(ORDERED_KINDS.includes(kind) ? { order: `${label}order${ordersUsed++}` } : {}),
        }),
      );
      pieces.push(transitionLabel);
    }
    if (span.alone > 0) pieces.push(partLabel('alone'));
  });
  graph.push(`${pieces.map((piece) => `[${piece}]`).join('')}concat=n=${pieces.length}:v=1:a=0[${output}]`);
  return graph;
}
