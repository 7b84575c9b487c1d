// The pure parts of the map's WebGL 2 points and of its bounded label work (app/ui/map/logic.js): what the buffers
// hold, where a moved picture goes, and the labels a frame considers, against brute force.
// Run with node's own test runner: `node --test tests/js/`.

import { test } from "node:test";
import assert from "node:assert/strict";

import {
  GL_ABOVE, MARK_REACH, MARKS, discMask, firstInView, glCentre, glPack, gridIndex, labelOrder, layerShift,
  orderRank, paletteBytes, toScreen,
} from "../../app/ui/map/logic.js";

import { rng } from "./seeded.mjs";

test("WebGL draws the points from twenty thousand of them", () => {
  assert.equal(GL_ABOVE, 20000);
});

test("each mark's reach holds every pixel its mask covers, so a point sprite of that side cuts none off", () => {
  for (const r of [2, 3.5, 5, 8, 13]) {
    MARKS.forEach((shape, k) => {
      const m = discMask(r, shape);
      let far = 0;
      for (let q = 0; q < m.length; q += 3) far = Math.max(far, Math.abs(m[q]) - 0.5, Math.abs(m[q + 1]) - 0.5);
      assert.ok(far <= MARK_REACH[k] * r + 1e-9, `${shape} at r=${r}: reaches ${far} > ${MARK_REACH[k] * r}`);
      assert.ok(far >= MARK_REACH[k] * r - 1.5, `${shape} at r=${r}: its reach ${MARK_REACH[k]} r is far too wide`);
    });
  }
});

test("the centre is the middle of the points' bounds in float64, NaN left out", () => {
  const xs = new Float32Array([1e6 + 1, 1e6 + 3, NaN, 1e6 + 2]), ys = new Float32Array([-5, 7, 0, NaN]);
  assert.deepEqual(glCentre(xs, ys), [1e6 + 2, 1]);
  assert.deepEqual(glCentre(new Float32Array([NaN]), new Float32Array([1])), [0, 0]);
});

test("positions less the centre keep their precision far from the origin", () => {
  const xs = new Float32Array([1e6 + 0.125, 1e6 + 0.25]), ys = new Float32Array([-3e5 - 0.5, -3e5 + 0.5]);
  const [cx, cy] = glCentre(xs, ys), xy = new Float32Array(4), style = new Uint32Array(2);
  glPack(xs, ys, cx, cy, new Int32Array(2), null, null, null, xy, style);
  // float32 of the raw values would lose the eighths; the differences from the centre are exact
  assert.deepEqual(Array.from(xy), [xs[0] - cx, ys[0] - cy, xs[1] - cx, ys[1] - cy]);
  assert.equal(xy[2] - xy[0], 0.125);
});

test("a point's style word holds its palette index, its category's mark and whether it is drawn", () => {
  const xs = new Float32Array([0, 1, 2, NaN, 4]), ys = new Float32Array([0, 1, NaN, 3, 4]);
  const colour = new Int32Array([3, 128, 7, 0, 65535]), codes = new Int32Array([0, 1, 2, 1, 0]);
  const keep = new Uint8Array([1, 1, 1, 1, 0]), markOf = Int8Array.from([5, 2, 0]);
  const xy = new Float32Array(10), style = new Uint32Array(5);
  const shown = glPack(xs, ys, 0, 0, colour, keep, codes, markOf, xy, style);
  assert.equal(shown, 2);  // NaN x, NaN y and the hidden one are not drawn
  const decodeStyle = (w) => [w & 0xffff, (w >>> 16) & 7, (w >>> 19) & 1];
  assert.deepEqual(Array.from(style, decodeStyle), [[3, 5, 1], [128, 2, 1], [7, 0, 0], [0, 2, 0], [65535, 5, 0]]);
  glPack(xs, ys, 0, 0, colour, null, null, null, xy, style);
  assert.deepEqual(Array.from(style, decodeStyle), [[3, 0, 1], [128, 0, 1], [7, 0, 0], [0, 0, 0], [65535, 0, 1]]);
});

test("the palette goes as opaque RGBA bytes, one texel a colour", () => {
  assert.deepEqual(Array.from(paletteBytes([[1, 2, 3], [250, 0, 9]])), [1, 2, 3, 255, 250, 0, 9, 255]);
  assert.equal(paletteBytes([]).length, 4);
});

test("a picture drawn at one view lands where the next view draws the same points", () => {
  const r = rng(3), w = 640, h = 400;
  for (let k = 0; k < 50; k++) {
    const from = { cx: r() * 10 - 5, cy: r() * 10 - 5, s: 5 + 50 * r() };
    const to = { cx: from.cx + r() - 0.5, cy: from.cy + r() - 0.5, s: from.s * (0.5 + r()) };
    const [x0, y0, f] = layerShift(from, to, w, h);
    const x = r() * 20 - 10, y = r() * 20 - 10;
    const [ax, ay] = toScreen(from, w, h, x, y), [bx, by] = toScreen(to, w, h, x, y);
    assert.ok(Math.abs(x0 + ax * f - bx) < 1e-9 && Math.abs(y0 + ay * f - by) < 1e-9);
  }
});

// The candidates as draw() chose them before: every labelled, kept point in view, sorted by priority (a stable
// sort, so ties by index), the first k.
function bruteTop(labels, priority, keep, inView, k) {
  const out = [];
  for (let i = 0; i < labels.length; i++) {
    if ((keep && !keep[i]) || labels[i] == null || labels[i] === "" || !inView(i)) continue;
    out.push(i);
  }
  if (priority) out.sort((a, b) => priority[b] - priority[a]);
  return out.slice(0, k);
}

test("the label order is the points with a label the legend keeps, by priority, ties by index", () => {
  const labels = ["a", "", "c", null, "e", "f", "g"];
  const priority = new Float32Array([1, 9, 2, 9, -0, 0, 2]), keep = new Uint8Array([1, 1, 1, 1, 1, 0, 1]);
  assert.deepEqual(Array.from(labelOrder(labels, priority, keep)), [2, 6, 0, 4]);
  assert.deepEqual(Array.from(labelOrder(labels, null, keep)), [0, 2, 4, 6]);
  assert.deepEqual(Array.from(labelOrder(null, priority, null)), []);
  const nan = new Float32Array([NaN, 0, -1e30, 1e30, Infinity, -Infinity, NaN]);
  assert.deepEqual(Array.from(labelOrder(labels, nan, null)), [4, 2, 5, 0, 6]);  // NaN last, by index
  const order = labelOrder(labels, priority, keep), rank = orderRank(order, labels.length);
  assert.deepEqual(Array.from(rank), [2, -1, 0, -1, 3, -1, 1]);
});

test("a frame's labels are the first in view of the order, walked or asked of the grid alike", () => {
  const r = rng(11);
  for (const n of [50, 3000, 40000]) {
    const xs = new Float32Array(n), ys = new Float32Array(n), priority = new Float32Array(n), labels = [];
    for (let i = 0; i < n; i++) {
      xs[i] = r() < 0.01 ? NaN : (r() - 0.5) * 20; ys[i] = (r() - 0.5) * 20;
      priority[i] = Math.floor(r() * 50);  // many ties
      labels.push(r() < 0.1 ? "" : `p${i}`);
    }
    const keep = Uint8Array.from({ length: n }, () => (r() < 0.8 ? 1 : 0)), grid = gridIndex(xs, ys);
    for (const pri of [priority, null]) {
      const order = labelOrder(labels, pri, keep), rank = orderRank(order, n);
      for (const [x0, y0, x1, y1] of [[-11, -11, 11, 11], [-2, -1, 1, 2], [3.1, 3.1, 3.6, 3.4], [30, 30, 31, 31]]) {
        const inView = (i) => xs[i] >= x0 && xs[i] <= x1 && ys[i] >= y0 && ys[i] <= y1;  // NaN: out
        for (const k of [1, 40, 4000]) {
          const want = bruteTop(labels, pri, keep, inView, k);
          assert.deepEqual(firstInView(order, rank, k, inView), want);
          assert.deepEqual(firstInView(order, rank, k, inView, grid, [x0, y0, x1, y1], 16), want);
          assert.deepEqual(firstInView(order, rank, k, inView, () => grid, [x0, y0, x1, y1]), want);
        }
      }
    }
  }
});

test("a deep zoom asks the grid instead of walking the whole order", () => {
  const n = 200000, r = rng(5), xs = new Float32Array(n), ys = new Float32Array(n);
  for (let i = 0; i < n; i++) { xs[i] = r() * 100; ys[i] = r() * 100; }
  const labels = Array.from({ length: n }, (_, i) => `p${i}`), order = labelOrder(labels, null, null);
  const rank = orderRank(order, n), grid = gridIndex(xs, ys);
  let asked = 0;
  const inView = (i) => { asked++; return xs[i] >= 50 && xs[i] <= 51 && ys[i] >= 50 && ys[i] <= 51; };
  const got = firstInView(order, rank, 4000, inView, grid, [50, 50, 51, 51]);
  assert.ok(got.length > 0 && got.length < 4000);
  assert.ok(asked < n / 4, `asked ${asked} of ${n}`);
});
