// The map's grid index answers a hover, a box and a lasso exactly as scanning every point does.
import { test } from "node:test";
import assert from "node:assert/strict";

import { boxHits, gridBox, gridIndex, gridNearest, lassoHits, nearest } from "../../app/ui/map/logic.js";

// A seeded generator, so a failure names its case.
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 4294967296; };
}

function cloud(n, seed, { nans = 0, dupes = 0, wide = 1 } = {}) {
  const r = rng(seed), xs = new Float32Array(n), ys = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    // clusters of different densities, one axis stretched: cells hold very different numbers of points
    const c = i % 3;
    xs[i] = (c * 4 + (r() - 0.5) * (c + 1)) * wide;
    ys[i] = (r() - 0.5) * (c === 2 ? 0.2 : 3);
  }
  for (let k = 0; k < nans; k++) xs[Math.floor(r() * n)] = NaN;
  for (let k = 0; k < dupes; k++) { const i = Math.floor(r() * n), j = Math.floor(r() * n); xs[j] = xs[i]; ys[j] = ys[i]; }
  return [xs, ys, r];
}

test("gridNearest finds the point nearest finds, ties and the radius included", () => {
  for (const [n, seed, opts] of [[5000, 1, {}], [20000, 2, { nans: 30, dupes: 500 }], [3000, 3, { wide: 50 }], [1, 4, {}]]) {
    const [xs, ys, r] = cloud(n, seed, opts), g = gridIndex(xs, ys);
    const keep = new Uint8Array(n).map(() => (r() < 0.8 ? 1 : 0));
    for (let q = 0; q < 300; q++) {
      const x = (r() * 14 - 2) * (opts.wide || 1), y = r() * 4 - 2, rad = [0.01, 0.2, 2, 50][q % 4];
      for (const k of [null, keep]) {
        assert.equal(gridNearest(g, xs, ys, k, x, y, rad), nearest(xs, ys, k, x, y, rad), `n ${n}, query ${q}`);
      }
    }
    // a query exactly on a point (a duplicate's twin): the highest index of the tie, as the scan
    const i = n - 1;
    if (xs[i] === xs[i]) assert.equal(gridNearest(g, xs, ys, null, xs[i], ys[i], 0), nearest(xs, ys, null, xs[i], ys[i], 0));
  }
});

test("gridBox and a lasso through the grid return what the scans return, in index order", () => {
  const [xs, ys, r] = cloud(30000, 5, { nans: 10 }), g = gridIndex(xs, ys);
  const keep = new Uint8Array(xs.length).map(() => (r() < 0.5 ? 1 : 0));
  for (let q = 0; q < 100; q++) {
    const ax = r() * 16 - 3, bx = r() * 16 - 3, ay = r() * 4 - 2, by = r() * 4 - 2;
    for (const k of [null, keep]) assert.deepEqual(gridBox(g, xs, ys, k, ax, ay, bx, by), boxHits(xs, ys, k, ax, ay, bx, by));
    const poly = Array.from({ length: 7 }, (_, j) => [ax + 3 * Math.cos(j) * r(), ay + 1.5 * Math.sin(j) * r()]);
    assert.deepEqual(lassoHits(xs, ys, keep, poly, g), lassoHits(xs, ys, keep, poly));
  }
  // a box past the points' bounds holds them all
  assert.equal(gridBox(g, xs, ys, null, -1e9, -1e9, 1e9, 1e9).length, xs.filter((v) => v === v).length);
});

test("a grid asks a small share of the points for a hover: about its cells' worth", () => {
  const [xs, ys] = cloud(100000, 6), g = gridIndex(xs, ys);
  assert.equal(g.order.length, 100000);
  assert.ok(g.nx * g.ny >= 100000 / 16 && g.nx * g.ny <= 100000 / 4, `${g.nx} x ${g.ny} cells`);
  const widest = Math.max(...Array.from({ length: g.nx * g.ny }, (_, c) => g.start[c + 1] - g.start[c]));
  assert.ok(widest < 2000, `the fullest cell holds ${widest} points`);
});
