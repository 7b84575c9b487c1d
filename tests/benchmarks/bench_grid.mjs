// The map's grid index against scanning every point, in one run: building it, a hover (nearest within 8 px) and a
// box of a tenth of the map, at 100,000 and 1,000,000 points. Run: node tests/benchmarks/bench_grid.mjs
import { boxHits, gridBox, gridIndex, gridNearest, nearest } from "../../app/ui/map/logic.js";

function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 4294967296; };
}

function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }

function time(fn, reps) {
  const out = [];
  for (let k = 0; k < reps; k++) { const t = performance.now(); fn(k); out.push(performance.now() - t); }
  return median(out);
}

for (const n of [100_000, 1_000_000]) {
  const r = rng(n), xs = new Float32Array(n), ys = new Float32Array(n);
  for (let i = 0; i < n; i++) { const c = i % 5; xs[i] = c * 3 + (r() - 0.5) * (c + 1); ys[i] = (r() - 0.5) * (5 - c); }
  const build = time(() => gridIndex(xs, ys), 5), g = gridIndex(xs, ys);
  const qs = Array.from({ length: 200 }, () => [r() * 15 - 1, r() * 5 - 2.5]);
  const rad = 14 / 600 * 8;  // 8 px on a 600 px wide map of the whole cloud
  const hoverScan = time((k) => nearest(xs, ys, null, qs[k][0], qs[k][1], rad), 200);
  const hoverGrid = time((k) => gridNearest(g, xs, ys, null, qs[k][0], qs[k][1], rad), 200);
  const boxScan = time((k) => boxHits(xs, ys, null, qs[k][0], qs[k][1], qs[k][0] + 1.5, qs[k][1] + 0.5), 50);
  const boxGrid = time((k) => gridBox(g, xs, ys, null, qs[k][0], qs[k][1], qs[k][0] + 1.5, qs[k][1] + 0.5), 50);
  console.log(`${n.toLocaleString("en")} points: grid built in ${build.toFixed(1)} ms; hover ${hoverGrid.toFixed(3)} ms `
    + `(scan ${hoverScan.toFixed(2)} ms, ${(hoverScan / hoverGrid).toFixed(0)}x); box ${boxGrid.toFixed(2)} ms `
    + `(scan ${boxScan.toFixed(2)} ms, ${(boxScan / boxGrid).toFixed(1)}x)`);
}
