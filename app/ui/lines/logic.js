// The line chart's pure logic: a value axis over a range that need not hold zero, where a value sits on
// an axis, and which drawn point is nearest the pointer. No DOM here: tests/js/lines.test.mjs runs it in
// node; app/ui/lines/__init__.py inlines it, after the bar chart's logic (ticks on linear and log axes).

// A linear axis over [lo, hi] only (a curve's x, a rank): {lo, hi, ticks, step, log: false}, the ends
// on multiples of a 1-2-5 step, about `target` parts. Zero is not forced in, unlike the bars' axis.
export function rangeAxis(lo, hi, target = 6) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) { lo = 0; hi = 1; }
  if (lo > hi) [lo, hi] = [hi, lo];
  if (lo === hi) { lo -= 0.5; hi += 0.5; }
  const raw = (hi - lo) / Math.max(1, target);
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  const step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  const a = Math.floor(lo / step + 1e-9) * step, b = Math.ceil(hi / step - 1e-9) * step;
  const ticks = [];
  for (let k = Math.round(a / step); k <= Math.round(b / step); k++) ticks.push(+(k * step).toPrecision(12));
  return { lo: a, hi: b, ticks, step, log: false };
}

// Where v sits between an axis's ends, 0 to 1 (log axes by the logarithm; v <= 0 on a log axis: NaN,
// not drawn).
export function position(axis, v) {
  if (axis.log) {
    if (!(v > 0)) return NaN;
    const a = Math.log10(axis.lo), b = Math.log10(axis.hi);
    return (Math.log10(v) - a) / (b - a);
  }
  return (v - axis.lo) / (axis.hi - axis.lo);
}

// The drawn point nearest pixel (px, py) within `reach` pixels: {s, i} (series, index) or null.
// `drawn` is one array of [x, y] pixel pairs per series (NaN where a point is not drawn).
export function nearestPoint(drawn, px, py, reach = 12) {
  let best = null, bestD = reach * reach;
  drawn.forEach((pts, s) => {
    for (let i = 0; i < pts.length; i++) {
      const dx = pts[i][0] - px, dy = pts[i][1] - py, d = dx * dx + dy * dy;
      if (d <= bestD) { bestD = d; best = { s, i }; }
    }
  });
  return best;
}
