/**
 * The composition both HyperFrames benches render: 1920×1080, three boxes animated by a GSAP timeline
 * (loaded from a public CDN, as compositions do; the render serves it from the vendored copy).
 */
export function benchComposition(seconds: number): string {
  return `<!doctype html>
<html><head><meta charset="utf-8">
<script src="https://cdn.jsdelivr.net/npm/gsap@3.12.5/dist/gsap.min.js"></script>
<style>html,body{margin:0;background:#101820}.box{position:absolute;width:240px;height:240px;top:420px}</style>
</head><body>
<div id="root" data-composition-id="main" data-start="0" data-duration="${seconds}" data-width="1920" data-height="1080">
  <div class="box" id="a" style="left:200px;background:#e63946"></div>
  <div class="box" id="b" style="left:840px;background:#2a9d8f"></div>
  <div class="box" id="c" style="left:1480px;background:#f4a261"></div>
</div>
<script>
  const tl = gsap.timeline({ paused: true });
  tl.to('#a', { x: 400, rotation: 360, duration: ${seconds}, ease: 'none' }, 0)
    .to('#b', { y: -300, backgroundColor: '#264653', duration: ${seconds / 2}, yoyo: true, repeat: 1 }, 0)
    .to('#c', { scale: 0.4, x: -600, duration: ${seconds}, ease: 'power2.inOut' }, 0);
  window.__timelines = window.__timelines || {};
  window.__timelines['main'] = tl;
</script>
</body></html>`;
}
