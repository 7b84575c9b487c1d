// The heatmap's pure logic: colours from a scale's stops, which cell is under the pointer, how many labels
// fit beside cells of a given size. No DOM here: tests/js/heatmap.test.mjs runs it in node;
// app/ui/heatmap/__init__.py inlines it above heatmap.js.

// The colour at t in [0, 1] on a scale given as stops [[t, r, g, b], ...] (t ascending), linearly between
// stops; NaN is grey.
export function colourAt(stops, t) {
  if (!(t === t)) return [200, 200, 200];
  if (t <= stops[0][0]) return stops[0].slice(1);
  for (let k = 1; k < stops.length; k++) {
    const [t1, r1, g1, b1] = stops[k];
    if (t <= t1) {
      const [t0, r0, g0, b0] = stops[k - 1], f = (t - t0) / (t1 - t0 || 1);
      return [Math.round(r0 + (r1 - r0) * f), Math.round(g0 + (g1 - g0) * f), Math.round(b0 + (b1 - b0) * f)];
    }
  }
  return stops[stops.length - 1].slice(1);
}

// Where value v sits on [lo, hi], clamped to [0, 1] (NaN stays NaN).
export function unit(v, lo, hi) {
  if (!(v === v)) return NaN;
  return hi > lo ? Math.min(1, Math.max(0, (v - lo) / (hi - lo))) : 0.5;
}

// n x n values (row-major) as RGBA pixels, one per cell.
export function paint(z, n, stops, lo, hi) {
  const out = new Uint8ClampedArray(n * n * 4);
  for (let k = 0; k < n * n; k++) {
    const c = colourAt(stops, unit(z[k], lo, hi));
    out[4 * k] = c[0]; out[4 * k + 1] = c[1]; out[4 * k + 2] = c[2]; out[4 * k + 3] = 255;
  }
  return out;
}

// The cell [row, col] of an n x n panel drawn at (x0, y0) with side `size` pixels under pixel (x, y), or null.
export function cellAt(x, y, x0, y0, size, n) {
  if (x < x0 || y < y0 || x >= x0 + size || y >= y0 + size) return null;
  return [Math.min(n - 1, Math.floor(((y - y0) / size) * n)), Math.min(n - 1, Math.floor(((x - x0) / size) * n))];
}

// Every k-th label, k the smallest step that leaves `need` pixels per label on cells `cell` pixels apart.
export function labelStep(cell, need = 13) {
  return Math.max(1, Math.ceil(need / Math.max(cell, 1e-9)));
}
