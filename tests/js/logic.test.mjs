// The map's pure logic (app/ui/map/logic.js) against exact answers and brute force.
// Run with node's own test runner: `node --test tests/js/` (tests/unit/test_map_js.py does).

import { test } from "node:test";
import assert from "node:assert/strict";

import {
  decode, bounds, fitView, toScreen, toData, zoomAt, boxHits, inPolygon, lassoHits, nearest, overlaps,
  placeLabels, matchFrames, tween, largestMove, parseColour, discMask, MARKS, blendDiscs, packRGBA, stampDiscs,
  significant, pointName, fieldValue, tipTitle, focusBounds, nearSpots, farSpots, leaderEnd, categoryMark,
} from "../../app/ui/map/logic.js";

import { rng } from "./seeded.mjs";

function cloud(n, seed, lo = -10, hi = 10) {
  const r = rng(seed), xs = new Float32Array(n), ys = new Float32Array(n);
  for (let i = 0; i < n; i++) { xs[i] = lo + (hi - lo) * r(); ys[i] = lo + (hi - lo) * r(); }
  return [xs, ys];
}

const close = (a, b, tol = 1e-9) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));

// ------------------------------------------------------------------ decode

test("decode reads float32 bytes written by numpy (little-endian, base64)", () => {
  // numpy: np.array([0, -1.5, 3.25, 1e-3, 123456.789, -7e-8, inf, nan], dtype="<f4")
  const v = decode("AAAAAAAAwL8AAFBAbxKDOmUg8UfoUpazAACAfwAAwH8=");
  assert.ok(v instanceof Float32Array);
  assert.equal(v.length, 8);
  assert.deepEqual(Array.from(v.slice(0, 6)),
    [0, -1.5, 3.25, 0.0010000000474974513, 123456.7890625, -6.999999868639861e-8]);
  assert.equal(v[6], Infinity);
  assert.ok(Number.isNaN(v[7]));
});

test("decode reads int32 bytes written by numpy, extremes included", () => {
  // numpy: np.array([0, 1, -1, 2**31 - 1, -2**31, 42, -7], dtype="<i4")
  const v = decode("AAAAAAEAAAD/////////fwAAAIAqAAAA+f///w==", Int32Array);
  assert.ok(v instanceof Int32Array);
  assert.deepEqual(Array.from(v), [0, 1, -1, 2147483647, -2147483648, 42, -7]);
});

test("decode round-trips float32 and int32 values through base64", () => {
  const [xs] = cloud(1001, 7, -1e6, 1e6);
  const b64 = Buffer.from(xs.buffer).toString("base64");
  assert.deepEqual(Array.from(decode(b64)), Array.from(xs));
  const ints = Int32Array.from({ length: 513 }, (_, i) => (i * 2654435761) | 0);
  assert.deepEqual(Array.from(decode(Buffer.from(ints.buffer).toString("base64"), Int32Array)), Array.from(ints));
  assert.equal(decode(null), null);
  assert.equal(decode("").length, 0);
});

// ------------------------------------------------------------------ the view

test("fitView uses one scale for both axes and fits every point inside the padded canvas", () => {
  for (const [w, h] of [[800, 480], [300, 900], [1440, 480]]) {
    const [xs, ys] = cloud(500, w + h, -3, 7);
    for (let i = 0; i < xs.length; i++) ys[i] *= 0.25; // a flat cloud: the width limits the scale
    const view = fitView(bounds(xs, ys), w, h, 24);
    for (let i = 0; i < xs.length; i++) {
      const [px, py] = toScreen(view, w, h, xs[i], ys[i]);
      assert.ok(px >= 24 - 1e-9 && px <= w - 24 + 1e-9 && py >= 24 - 1e-9 && py <= h - 24 + 1e-9, `${px},${py}`);
    }
    // one unit across is as many pixels as one unit up
    const [ax, ay] = toScreen(view, w, h, 0, 0), [bx] = toScreen(view, w, h, 1, 0), [, cy] = toScreen(view, w, h, 0, 1);
    assert.ok(close(bx - ax, ay - cy), `${bx - ax} across, ${ay - cy} up`);
    // the binding axis is filled exactly
    const b = bounds(xs, ys);
    assert.ok(close(view.s, Math.min((w - 48) / (b[2] - b[0]), (h - 48) / (b[3] - b[1]))));
  }
});

test("bounds skips NaN and hidden points and gives a degenerate cloud a unit box", () => {
  const xs = Float32Array.from([1, NaN, 3, 100]), ys = Float32Array.from([2, 5, NaN, 100]);
  assert.deepEqual(bounds(xs, ys, Uint8Array.from([1, 1, 1, 0])), [0.5, 1.5, 1.5, 2.5]);
  assert.deepEqual(bounds(new Float32Array(0), new Float32Array(0)), [-1, -1, 1, 1]);
});

test("toData inverts toScreen", () => {
  const view = { cx: 3.5, cy: -2.25, s: 37.125 };
  const [xs, ys] = cloud(200, 3);
  for (let i = 0; i < xs.length; i++) {
    const [px, py] = toScreen(view, 640, 480, xs[i], ys[i]);
    const [x, y] = toData(view, 640, 480, px, py);
    assert.ok(close(x, xs[i], 1e-12) && close(y, ys[i], 1e-12));
  }
  // y grows upwards on the map, downwards on the screen
  assert.ok(toScreen(view, 640, 480, 0, 1)[1] < toScreen(view, 640, 480, 0, 0)[1]);
});

test("zoomAt keeps the point under the cursor where it is", () => {
  const r = rng(11);
  let view = { cx: 0.3, cy: -1.2, s: 20 };
  for (let k = 0; k < 100; k++) {
    const px = 700 * r(), py = 500 * r(), f = Math.exp(4 * r() - 2);
    const before = toData(view, 700, 500, px, py);
    const next = zoomAt(view, 700, 500, px, py, f);
    assert.ok(close(next.s, view.s * f, 1e-12));
    const after = toData(next, 700, 500, px, py);
    assert.ok(close(before[0], after[0], 1e-9) && close(before[1], after[1], 1e-9), `${before} -> ${after}`);
    view = next;
  }
});

// ------------------------------------------------------------------ hit tests

function bruteBox(xs, ys, keep, ax, ay, bx, by) {
  const out = [];
  for (let i = 0; i < xs.length; i++) {
    if (keep && !keep[i]) continue;
    if (xs[i] >= Math.min(ax, bx) && xs[i] <= Math.max(ax, bx) && ys[i] >= Math.min(ay, by) && ys[i] <= Math.max(ay, by)) out.push(i);
  }
  return out;
}

test("boxHits equals brute force, in any corner order, with hidden points and edges included", () => {
  const [xs, ys] = cloud(3000, 5);
  const keep = Uint8Array.from(xs, (_, i) => (i % 7 ? 1 : 0));
  const r = rng(13);
  for (let k = 0; k < 50; k++) {
    const ax = -12 + 24 * r(), ay = -12 + 24 * r(), bx = -12 + 24 * r(), by = -12 + 24 * r();
    assert.deepEqual(boxHits(xs, ys, null, ax, ay, bx, by), bruteBox(xs, ys, null, ax, ay, bx, by));
    assert.deepEqual(boxHits(xs, ys, keep, bx, by, ax, ay), bruteBox(xs, ys, keep, ax, ay, bx, by));
  }
  // points exactly on the box's edges and corners are inside
  const gx = Float32Array.from([0, 1, 2, 0, 1, 2, 0, 1, 2, 3]), gy = Float32Array.from([0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
  assert.deepEqual(boxHits(gx, gy, null, 0, 0, 2, 2), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(boxHits(gx, gy, null, 1, 1, 1, 1), [4]);
});

// The winding number of the polygon around (x, y): a different rule from logic.js's even-odd
// crossings, equal to it (non-zero <=> inside) for a polygon that does not cross itself.
function winding(poly, x, y) {
  let wn = 0;
  for (let i = 0; i < poly.length; i++) {
    const [x0, y0] = poly[i], [x1, y1] = poly[(i + 1) % poly.length];
    const side = (x1 - x0) * (y - y0) - (x - x0) * (y1 - y0);
    if (y0 <= y) { if (y1 > y && side > 0) wn++; } else if (y1 <= y && side < 0) wn--;
  }
  return wn;
}

function bruteLasso(xs, ys, keep, poly) {
  const out = [];
  for (let i = 0; i < xs.length; i++) if ((!keep || keep[i]) && winding(poly, xs[i], ys[i]) !== 0) out.push(i);
  return out;
}

// A star: concave, with 2k vertices alternating between two radii, turned by `turn`.
function star(k, r0, r1, cx, cy, turn) {
  return Array.from({ length: 2 * k }, (_, j) => {
    const a = turn + (Math.PI * j) / k, r = j % 2 ? r1 : r0;
    return [cx + r * Math.cos(a), cy + r * Math.sin(a)];
  });
}

test("lassoHits equals brute force for convex, concave and random star lassos", () => {
  const [xs, ys] = cloud(4000, 17);
  const keep = Uint8Array.from(xs, (_, i) => (i % 5 ? 1 : 0));
  // a C shape (concave: its mouth is outside) and a comb
  const shapes = [
    [[-8, -8], [8, -8], [8, -4], [-4, -4], [-4, 4], [8, 4], [8, 8], [-8, 8]],
    [[-9, -9], [9, -9], [9, 9], [6, 9], [6, -5], [3, -5], [3, 9], [0, 9], [0, -5], [-3, -5], [-3, 9], [-9, 9]],
    [[-5, -5], [5, -5], [0, 6]],
  ];
  const r = rng(19);
  for (let k = 0; k < 30; k++) shapes.push(star(3 + Math.floor(6 * r()), 2 + 6 * r(), 0.5 + 2 * r(), -5 + 10 * r(), -5 + 10 * r(), r()));
  for (const poly of shapes) {
    const got = lassoHits(xs, ys, null, poly);
    assert.deepEqual(got, bruteLasso(xs, ys, null, poly));
    assert.ok(got.length > 0);
    assert.deepEqual(lassoHits(xs, ys, keep, poly), bruteLasso(xs, ys, keep, poly));
    // the lasso drawn the other way round selects the same points
    assert.deepEqual(lassoHits(xs, ys, null, [...poly].reverse()), got);
  }
  // the C's mouth is not selected, its back is
  const c = shapes[0];
  assert.equal(inPolygon(c, 2, 0), false);
  assert.equal(inPolygon(c, -6, 0), true);
  assert.deepEqual(lassoHits(xs, ys, null, [[0, 0], [1, 1]]), []);
});

test("a point exactly on a lasso's edge or corner belongs to exactly one of the lassos that tile the plane", () => {
  // a 4 x 4 grid of unit-square lassos, and points on every edge, corner and cell centre inside it
  const xs = [], ys = [];
  for (let i = 0; i <= 8; i++) for (let j = 0; j <= 8; j++) { xs.push(0.5 + i / 2); ys.push(0.5 + j / 2); }
  const X = Float32Array.from(xs), Y = Float32Array.from(ys);
  const count = new Int32Array(X.length);
  for (let a = 0; a < 5; a++) for (let b = 0; b < 5; b++) {
    const sq = [[a, b], [a + 1, b], [a + 1, b + 1], [a, b + 1]];
    for (const i of lassoHits(X, Y, null, sq)) count[i]++;
    // and the same square as a concave-free lasso with extra points on its edges
    const dense = [[a, b], [a + 0.5, b], [a + 1, b], [a + 1, b + 0.5], [a + 1, b + 1], [a + 0.5, b + 1], [a, b + 1], [a, b + 0.5]];
    assert.deepEqual(lassoHits(X, Y, null, dense), lassoHits(X, Y, null, sq));
  }
  assert.deepEqual(Array.from(count), Array.from(X, () => 1), "each point in exactly one square");
  // points strictly inside a square lasso are the box's points
  const [cx, cy] = cloud(2000, 23, 0, 4);
  const sq = [[1, 1], [3, 1], [3, 3], [1, 3]];
  assert.deepEqual(lassoHits(cx, cy, null, sq), boxHits(cx, cy, null, 1, 1, 3, 3));
});

test("nearest finds the closest point within the radius, or -1", () => {
  const [xs, ys] = cloud(2000, 29);
  const keep = Uint8Array.from(xs, (_, i) => (i % 3 ? 1 : 0));
  const r = rng(31);
  for (let k = 0; k < 200; k++) {
    const x = -10 + 20 * r(), y = -10 + 20 * r(), rad = 2 * r();
    for (const kp of [null, keep]) {
      let best = -1, bestD = Infinity;
      for (let i = 0; i < xs.length; i++) {
        if (kp && !kp[i]) continue;
        const d = Math.hypot(xs[i] - x, ys[i] - y);
        if (d <= rad && d < bestD) { best = i; bestD = d; }
      }
      const got = nearest(xs, ys, kp, x, y, rad);
      if (best < 0) assert.equal(got, -1);
      else assert.ok(close(Math.hypot(xs[got] - x, ys[got] - y), bestD, 1e-12), `${got} vs ${best}`);
    }
  }
  assert.equal(nearest(Float32Array.from([0]), Float32Array.from([0]), null, 5, 5, 1), -1);
});

// ------------------------------------------------------------------ labels

function labelCands(n, seed, w, h, mustEvery = 0) {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => ({
    i, x: w * r(), y: h * r(), w: 14 + 70 * r(), h: 14, must: mustEvery > 0 && i % mustEvery === 0,
  }));
}

// Every label once, inside the canvas, its own size, none over another; beside its point (its mark's radius and
// the gap away at most, along each axis), or a leader line's length away when it was pushed off.
function checkPlacement(cands, placed, w, h, gap = 3) {
  const byI = new Map(cands.map((c) => [c.i, c]));
  const seen = new Set();
  for (const { i, box, leader } of placed) {
    assert.ok(!seen.has(i), `label ${i} placed twice`);
    seen.add(i);
    const c = byI.get(i), g = (c.r || 0) + gap, v = Math.max(g, c.h / 2 + 1);
    assert.ok(box[0] >= 0 && box[1] >= 0 && box[2] <= w && box[3] <= h, `label ${i} outside: ${box}`);
    assert.ok(close(box[2] - box[0], c.w) && close(box[3] - box[1], c.h), `label ${i} resized`);
    const dx = Math.max(box[0] - c.x, 0, c.x - box[2]), dy = Math.max(box[1] - c.y, 0, c.y - box[3]);
    if (leader) {
      assert.ok(c.must || c.leaders, `label ${i} took a leader line it may not`);
      assert.ok(dx <= g + 6 * Math.max(c.h + 2, c.w / 3) + 1e-9 && dy <= v + 6 * (c.h + 2) + 1e-9, `label ${i} far from its point`);
    } else {
      assert.ok(dx <= g + 1e-9 && dy <= v + 1e-9, `label ${i} not beside its point: ${dx}, ${dy}`);
    }
  }
  for (let a = 0; a < placed.length; a++)
    for (let b = a + 1; b < placed.length; b++)
      assert.ok(!overlaps(placed[a].box, placed[b].box),
        `labels ${placed[a].i} and ${placed[b].i} overlap: ${placed[a].box} / ${placed[b].box}`);
  return seen;
}

// Whether a box covers part of the disc of radius r at (x, y).
const covers = (box, x, y, r) => Math.hypot(Math.min(Math.max(x, box[0]), box[2]) - x, Math.min(Math.max(y, box[1]), box[3]) - y) < r;

for (const n of [300, 2000]) {
  test(`placeLabels: ${n} random labels, none overlapping, all inside the canvas, every must placed`, () => {
    const [w, h] = [1100, 480];
    for (const seed of [1, 2, 3]) {
      const cands = labelCands(n, seed * 1000 + n, w, h, 97);
      const placed = placeLabels(cands, w, h);
      const seen = checkPlacement(cands, placed, w, h);
      for (const c of cands) if (c.must) assert.ok(seen.has(c.i), `must label ${c.i} not placed`);
      assert.ok(placed.length >= Math.min(n, 60), `only ${placed.length} labels placed`);
      // the must labels come first; the rest keep their order of importance
      const order = placed.map((p) => p.i);
      const firstFree = order.findIndex((i) => !cands[i].must);
      assert.ok(order.slice(firstFree).every((i) => !cands[i].must));
      const rest = order.slice(firstFree);
      assert.deepEqual(rest, [...rest].sort((a, b) => a - b));
    }
  });
}

test("placeLabels: a label tries right of its point, then left, above and below, each a gap past its mark", () => {
  const w = 400, h = 300, c = { i: 0, x: 200, y: 150, w: 40, h: 14, must: false, r: 5 }, g = 5 + 3;
  const spot = (blocked) => placeLabels([c], w, h, { blocked })[0].box;
  assert.deepEqual(spot([]), [208, 143, 248, 157]);  // right, centred on the point
  const right = [206, 143, 300, 157], left = [100, 143, 194, 157], above = [170, 120, 230, 142];
  assert.deepEqual(spot([right]), [200 - g - 40, 143, 200 - g, 157]);
  assert.deepEqual(spot([right, left]), [180, 150 - g - 14, 220, 150 - g]);
  assert.deepEqual(spot([right, left, above]), [180, 150 + g, 220, 150 + g + 14]);
  // a small mark: the labels above and below keep clear of those beside (half a label's height and a pixel)
  const small = placeLabels(Array.from({ length: 4 }, (_, i) => ({ ...c, i, r: 1 })), w, h).map((p) => p.box);
  assert.deepEqual(small, [[204, 143, 244, 157], [156, 143, 196, 157], [180, 128, 220, 142], [180, 158, 220, 172]]);
  // near the right edge the first spot would leave the canvas: the label goes left
  assert.deepEqual(placeLabels([{ ...c, x: 380 }], w, h)[0].box, [380 - g - 40, 143, 380 - g, 157]);
});

test("placeLabels: a label with no free spot is left out, unless it must show", () => {
  const w = 400, h = 300;
  // four labels crowd around one point (right, left, above, below); a fifth at the same point finds every spot
  // beside it taken
  const cands = Array.from({ length: 5 }, (_, i) => ({ i, x: 200, y: 150, w: 40, h: 14, must: false }));
  assert.deepEqual(placeLabels(cands, w, h).map((p) => p.i), [0, 1, 2, 3]);
  const withMust = cands.map((c) => ({ ...c, must: c.i === 4 }));
  const placed = placeLabels(withMust, w, h);
  assert.equal(placed[0].i, 4);
  checkPlacement(withMust, placed, w, h);
  // without a must, a map that names every point (leaders) places all five: the last a leader line away
  const led = placeLabels(cands.map((c) => ({ ...c, leaders: true })), w, h, { leaders: true });
  assert.equal(led.length, 5);
  assert.deepEqual(led.map((p) => p.leader), [false, false, false, false, true]);
  checkPlacement(cands.map((c) => ({ ...c, leaders: true })), led, w, h);
  // a must label near a corner is pulled inside the canvas
  const corner = placeLabels([{ i: 0, x: 399, y: 1, w: 60, h: 14, must: true }], w, h);
  checkPlacementInside(corner, w, h);
});

test("placeLabels: labels keep off the axis titles and the scale bar (blocked boxes)", () => {
  const [w, h] = [600, 400], r = rng(7);
  const blocked = [[6, 380, 140, 396], [360, 380, 596, 397], [8, 4, 26, 300]];  // scale bar, x title, y title
  const cands = Array.from({ length: 400 }, (_, i) => ({ i, x: w * r(), y: h * r(), w: 20 + 40 * r(), h: 14, must: i % 50 === 0, r: 4 }));
  const placed = placeLabels(cands, w, h, { blocked });
  checkPlacement(cands, placed, w, h);
  for (const { i, box } of placed) for (const b of blocked) assert.ok(!overlaps(box, b), `label ${i} over ${b}`);
  assert.ok(placed.length > 100);
});

test("placeLabels: two close labelled points are each named beside their own mark, not over the other's", () => {
  // the day map of the Categories page: Sat and Sun 17 px apart, Mon and Tue 9 px apart, marks of radius 7
  const pts = { Sat: [299, 308], Sun: [307, 323], Mon: [51, 416], Tue: [46, 408], Wed: [48, 282], Thu: [54, 174], Fri: [126, 84] };
  const names = Object.keys(pts), [w, h] = [352, 440];
  const cands = names.map((t, i) => ({ i, x: pts[t][0], y: pts[t][1], w: 7 * t.length + 2, h: 14, must: false, r: 7 }));
  const dots = cands.map((c) => ({ x: c.x, y: c.y, r: 7, i: c.i, named: true }));
  for (const leaders of [false, true]) {
    const placed = placeLabels(cands, w, h, { dots, leaders });
    assert.equal(placed.length, names.length);
    checkPlacement(cands.map((c) => ({ ...c, leaders })), placed, w, h);
    for (const { i, box } of placed)
      for (const d of dots) if (d.i !== i) assert.ok(!covers(box, d.x, d.y, d.r), `${names[i]}'s label covers ${names[d.i]}'s mark`);
  }
});

test("placeLabels: a crowd of few labelled points is named in full, leader lines to free spots, over no mark", () => {
  const [w, h] = [500, 400], r = rng(11);
  for (const m of [5, 9, 14]) {
    const cands = Array.from({ length: m }, (_, i) => ({ i, x: 250 + 16 * (r() - 0.5), y: 200 + 16 * (r() - 0.5), w: 30 + 30 * r(), h: 14, must: false, r: 5, leaders: true }));
    const dots = cands.map((c) => ({ x: c.x, y: c.y, r: 5, i: c.i, named: true }));
    const placed = placeLabels(cands, w, h, { dots, leaders: true });
    assert.equal(placed.length, m, `${m} points: ${placed.length} named`);
    checkPlacement(cands, placed, w, h);
    for (const { i, box } of placed)
      for (const d of dots) if (d.i !== i) assert.ok(!covers(box, d.x, d.y, d.r), `label ${i} covers point ${d.i}`);
    assert.ok(placed.some((p) => p.leader), "a crowd this tight needs leader lines");
  }
});

test("placeLabels: of the free spots, one over no plain point is taken first", () => {
  const c = { i: 0, x: 200, y: 150, w: 30, h: 14, must: false, r: 4 };
  // a plain point right of the label's point: the label goes left
  const placed = placeLabels([c], 400, 300, { dots: [{ x: 222, y: 150, r: 4, i: 1, named: false }] });
  assert.ok(placed[0].box[2] <= 200 && !placed[0].leader, `${placed[0].box}`);
  // points all round: it still goes beside its point (no leader line for a plain point), where it covers fewest
  const ring = Array.from({ length: 16 }, (_, k) => ({ x: 200 + 20 * Math.cos(k / 2.5), y: 150 + 14 * Math.sin(k / 2.5), r: 4, i: k + 1, named: false }));
  const crowded = placeLabels([c], 400, 300, { dots: ring, leaders: true });
  assert.equal(crowded.length, 1);
  assert.ok(!crowded[0].leader);
});

test("placeLabels: must labels crowded at one place are all placed, stacked without overlap", () => {
  const [w, h] = [1400, 800], r = rng(43), cands = [];
  // 10 crowds, 150 px apart or more, of 2 to 10 must labels at nearly the same point, then 1,500 others
  const centres = [];
  for (let t = 0; centres.length < 10 && t < 10000; t++) {
    const x = 80 + (w - 160) * r(), y = 160 + (h - 320) * r();
    if (centres.every(([a, b]) => Math.hypot(a - x, b - y) > 150)) centres.push([x, y]);
  }
  for (const [x, y] of centres) {
    const m = 2 + Math.floor(9 * r());
    for (let j = 0; j < m; j++) cands.push({ i: cands.length, x: x + r(), y: y + r(), w: 30 + 40 * r(), h: 14, must: true });
  }
  const musts = cands.length;
  for (let j = 0; j < 1500; j++) cands.push({ i: cands.length, x: w * r(), y: h * r(), w: 20 + 50 * r(), h: 14, must: false });
  const placed = placeLabels(cands, w, h);
  const seen = checkPlacement(cands, placed, w, h);
  for (let i = 0; i < musts; i++) assert.ok(seen.has(i), `must label ${i} not placed`);
  assert.ok(placed.length > musts + 50);
});

test("farSpots are nearest first, and leaderEnd is the box's point nearest the label's point", () => {
  const spots = farSpots(100, 100, 30, 14, 6);
  const away = ([bx, by]) => Math.hypot(Math.max(bx - 100, 0, 100 - bx - 30), Math.max(by - 100, 0, 100 - by - 14));
  for (let k = 1; k < spots.length; k++) assert.ok(away(spots[k - 1]) <= away(spots[k]) + 1e-9);
  assert.deepEqual(leaderEnd(0, 0, [10, -5, 40, 9]), [10, 0]);
  assert.deepEqual(leaderEnd(50, 50, [10, -5, 40, 9]), [40, 9]);
  assert.equal(nearSpots(0, 0, 10, 14, 4).length, 8);
});

function checkPlacementInside(placed, w, h) {
  for (const { box } of placed) assert.ok(box[0] >= 0 && box[1] >= 0 && box[2] <= w && box[3] <= h, `${box}`);
}

// ------------------------------------------------------------------ frames

test("matchFrames: the same items match one to one, ids match by id, unknown ids get -1", () => {
  const a = { n: 4, items: "t1", ids: null };
  assert.deepEqual(Array.from(matchFrames(a, { n: 4, items: "t1", ids: null })), [0, 1, 2, 3]);
  assert.deepEqual(Array.from(matchFrames(null, { n: 3, items: "t1" })), [-1, -1, -1]);
  // other items, no ids: nothing to match
  assert.deepEqual(Array.from(matchFrames(a, { n: 4, items: "t2", ids: null })), [-1, -1, -1, -1]);
  // the same token but another count cannot be the same items
  assert.deepEqual(Array.from(matchFrames(a, { n: 3, items: "t1", ids: null })), [-1, -1, -1]);
  const old = { n: 4, items: "x", ids: ["a", "b", "c", "d"] };
  const next = { n: 5, items: "y", ids: ["d", "zz", "a", "c", "new"] };
  assert.deepEqual(Array.from(matchFrames(old, next)), [3, -1, 0, 2, -1]);
  const out = matchFrames(old, { n: 2, items: "x", ids: ["a", "b"] });
  assert.ok(out instanceof Int32Array);
});

test("tween gives the old positions at t=0 and the new ones at t=1, exactly; new items sit at their place", () => {
  const [fx, fy] = cloud(500, 37), [tx, ty] = cloud(600, 41, -1e3, 1e3);
  const match = Int32Array.from({ length: 600 }, (_, i) => (i % 10 === 9 ? -1 : (i * 7) % 500));
  fx[3] = NaN; // a point with no old place
  const [x0, y0] = tween(fx, fy, tx, ty, match, 0);
  const [x1, y1] = tween(fx, fy, tx, ty, match, 1);
  const [xh, yh] = tween(fx, fy, tx, ty, match, 0.5);
  for (let i = 0; i < 600; i++) {
    const j = match[i];
    const fresh = j < 0 || Number.isNaN(fx[j]);
    assert.equal(x0[i], fresh ? tx[i] : fx[j]);
    assert.equal(y0[i], fresh ? ty[i] : fy[j]);
    assert.equal(x1[i], tx[i]);
    assert.equal(y1[i], ty[i]);
    if (!fresh) {
      // half-way in time is past half-way in distance (eased out), and between the two
      const u = (xh[i] - fx[j]) / (tx[i] - fx[j]);
      assert.ok(Math.abs(tx[i] - fx[j]) < 1e-3 || (u > 0.5 && u < 1), `${u}`);
    } else assert.equal(xh[i], tx[i]);
  }
  // past the end stays at the end
  assert.deepEqual(Array.from(tween(fx, fy, tx, ty, match, 3)[0]), Array.from(tx));
});

test("largestMove: the farthest a matched point moves along an axis; unmatched and placeless points do not count", () => {
  const fx = Float32Array.from([0, 1, 2, NaN]), fy = Float32Array.from([0, 1, 2, 5]);
  const same = Int32Array.from([0, 1, 2]);
  assert.equal(largestMove(fx, fy, fx.slice(0, 3), fy.slice(0, 3), same), 0);
  assert.equal(largestMove(fx, fy, Float32Array.from([0, 1, 2.5]), Float32Array.from([0, -2, 2]), same), 3);
  // a new point far away (no old place) and a point whose old place is unknown (NaN) move nothing
  const match = Int32Array.from([0, -1, 3]);
  assert.equal(largestMove(fx, fy, Float32Array.from([0, 100, 100]), Float32Array.from([0.25, 100, 100]), match), 0.25);
});

// ------------------------------------------------------------------ points drawn as pixels

test("parseColour reads the palette's spellings", () => {
  assert.deepEqual(parseColour("#3b5bdb"), [0x3b, 0x5b, 0xdb]);
  assert.deepEqual(parseColour("#fff"), [255, 255, 255]);
  assert.deepEqual(parseColour("rgb(68,1,84)"), [68, 1, 84]);
  assert.deepEqual(parseColour("rgba(33, 37, 41, 0.85)"), [33, 37, 41]);
  assert.deepEqual(parseColour("chartreuse"), [128, 128, 128]);
});

test("a disc's coverage adds up to its area and is full inside, partial only at the edge", () => {
  for (const r of [0.8, 2, 3.5, 5, 9.25]) {
    const m = discMask(r);
    let area = 0;
    for (let q = 0; q < m.length; q += 3) {
      const [dx, dy, c] = [m[q], m[q + 1], m[q + 2]], d = Math.hypot(dx, dy);
      area += c;
      assert.ok(c > 0 && c <= 1);
      if (d <= r - 0.75) assert.equal(c, 1, `pixel ${dx},${dy} inside r=${r}`);
      assert.ok(d <= r + 0.75, `pixel ${dx},${dy} outside r=${r}`);
    }
    assert.ok(Math.abs(area - Math.PI * r * r) <= 0.06 * Math.PI * r * r + 1, `area of r=${r}: ${area}`);
  }
});

test("discs blend over each other as source-over does, and are clipped at the edges", () => {
  const W = 20, H = 10, data = new Uint8ClampedArray(W * H * 4);
  const px = [5, 5, 19.4, -50], py = [5, 5, 0, 5];
  const colours = [[255, 0, 0], [0, 0, 255], [0, 255, 0], [9, 9, 9]];
  const mask = () => discMask(2);
  blendDiscs(data, W, H, px, py, [0, 1, 2, 3], (i) => colours[i], 0.5, mask);
  // the centre: red at 0.5, then blue at 0.5 over it: alpha 0.75, blue 2/3 of the colour, red 1/3
  const o = (5 * W + 5) * 4;
  assert.ok(Math.abs(data[o + 3] - 0.75 * 255) <= 1);
  assert.ok(Math.abs(data[o] - 255 / 3) <= 1 && Math.abs(data[o + 2] - 510 / 3) <= 1 && data[o + 1] === 0);
  // a disc centred on the right edge is drawn in part, the one far outside not at all
  assert.ok(data[(0 * W + 19) * 4 + 1] > 100);
  for (let k = 0; k < W * H; k++) assert.notEqual(data[k * 4], 9);
  // nothing drawn away from the discs
  assert.equal(data[(9 * W + 12) * 4 + 3], 0);
  // a point at NaN is skipped
  const before = data.slice();
  blendDiscs(data, W, H, [NaN], [3], [0], () => [1, 2, 3], 1, mask);
  assert.deepEqual(data, before);
});

test("a glide's frame stamps each disc where it covers at least half a pixel, in the point's colour", () => {
  const W = 20, H = 12, pixels = new Uint8ClampedArray(W * H * 4), words = new Uint32Array(pixels.buffer);
  const px = [5, 5, 19.4, -50, NaN], py = [5, 5, 0, 5, 3];
  const colours = [[255, 0, 0], [0, 0, 255], [0, 255, 0], [9, 9, 9], [7, 7, 7]];
  const mask = () => discMask(2);
  stampDiscs(words, W, H, px, py, [0, 1, 2, 3, 4], (i) => packRGBA(colours[i], 0.8), mask);
  // the later point covers the earlier one: opaque stamping, no blend
  const o = (5 * W + 5) * 4;
  assert.deepEqual(Array.from(pixels.slice(o, o + 4)), [0, 0, 255, Math.round(0.8 * 255)]);
  // exactly the pixels the disc covers at least half of, clipped at the canvas edge; nothing else
  const reference = new Uint8ClampedArray(W * H * 4);
  blendDiscs(reference, W, H, px, py, [0, 1, 2, 3, 4], (i) => colours[i], 1, mask);
  const m = discMask(2);
  let stamped = 0;
  for (let k = 0; k < W * H; k++) if (pixels[k * 4 + 3]) stamped++;
  let expected = 0;
  const seen = new Set();
  for (const [cx, cy] of [[5, 5], [19, 0]]) {
    for (let q = 0; q < m.length; q += 3) {
      const x = cx + m[q], y = cy + m[q + 1];
      if (m[q + 2] >= 0.5 && x >= 0 && y >= 0 && x < W && y < H && !seen.has(y * W + x)) { seen.add(y * W + x); expected++; }
    }
  }
  assert.equal(stamped, expected);
  for (let k = 0; k < W * H; k++) if (pixels[k * 4 + 3]) assert.ok(reference[k * 4 + 3] > 0);
  assert.equal(packRGBA([1, 2, 3], 1), (255 << 24 | 3 << 16 | 2 << 8 | 1) >>> 0);
});

test("a tooltip writes numbers with three significant digits and names points by id, row or #", () => {
  assert.deepEqual([0.123456, 14.149, 4.7, 123456, -0.000123456, NaN].map((v) => significant(v)),
                   ["0.123", "14.1", "4.7", "123000", "-0.000123", "NaN"]);
  assert.equal(significant(2 / 3, 2), "0.67");
  const nums = decode(Buffer.from(new Float32Array([1.23456, 7]).buffer).toString("base64"));
  assert.deepEqual([0, 1].map((i) => fieldValue({ nums, digits: 3 }, i)), ["1.23", "7"]);
  assert.equal(fieldValue({ values: ["a", "b"] }, 1), "b");
  assert.deepEqual([0, 1, 2].map((i) => fieldValue({ cds: new Int32Array([1, 0, -1]), names: ["x", "y"] }, i)),
                   ["y", "x", ""]);
  assert.deepEqual([pointName({ ids: ["x", "y"] }, 1), pointName({ ids: null, rowIds: true }, 1),
                    pointName({ ids: null }, 1)], ["y", "1", "#1"]);
  // a point whose label is left empty (nothing written beside it on the map) is still named in its tooltip
  const frame = { labels: ["alpha", "", null], ids: null, rowIds: true };
  assert.deepEqual([0, 1, 2].map((i) => tipTitle(frame, i)), ["alpha", "1", "2"]);
  assert.equal(tipTitle({ labels: null, ids: ["x"] }, 0), "x");
});

test("focusBounds frames the chosen points, each axis at least a quarter of the whole map", () => {
  const xs = [0, 100, 50, 52], ys = [0, 100, 50, 51];
  assert.deepEqual(focusBounds(xs, ys, [2, 3]), [38.5, 38, 63.5, 63]);
  // a spread wider than a tenth is kept as it is
  assert.deepEqual(focusBounds(xs, ys, [0, 2]), [0, 0, 50, 50]);
  // nothing to frame (indices out of range): the whole map
  assert.deepEqual(focusBounds(xs, ys, [9]), bounds(xs, ys));
});

test("each category mark covers about the circle's area, and no two marks cover the same pixels", () => {
  const area = (m) => m.reduce((a, v, k) => (k % 3 === 2 ? a + v : a), 0);
  const r = 6, circle = area(discMask(r)), seen = new Set();
  assert.ok(Math.abs(circle - Math.PI * r * r) < 2);
  for (const shape of MARKS) {
    const m = discMask(r, shape), a = area(m);
    assert.ok(a > 0.55 * circle && a < 1.25 * circle, `${shape}: ${a.toFixed(1)} against ${circle.toFixed(1)}`);
    const cells = [];
    for (let k = 0; k < m.length; k += 3) if (m[k + 2] >= 0.5) cells.push(`${m[k]},${m[k + 1]}`);
    const key = cells.sort().join(";");
    assert.ok(!seen.has(key), `${shape} looks like another mark`);
    seen.add(key);
  }
});

// ------------------------------------------------------------------ category marks and the view's margins

test("categoryMark: each category's own mark when the colour lists them, MARKS in turn when it only says so", () => {
  const listed = { marks: ["square", "circle", "cross", "square"] };
  assert.deepEqual([0, 1, 2, 3].map((k) => categoryMark(listed, k)), [1, 0, 5, 1]);
  assert.deepEqual([0, 5, 6, 13].map((k) => categoryMark({ marks: true }, k)), [0, 5, 0, 1]);
  assert.equal(categoryMark({ marks: false }, 3), -1);
  assert.equal(categoryMark({}, 3), -1);
});

test("fitView with a margin at each side keeps the points off the axis titles, one scale on both axes", () => {
  const [xs, ys] = cloud(400, 5, -2, 9);
  for (const [w, h] of [[800, 480], [300, 900]]) {
    const pad = { l: 40, t: 24, r: 24, b: 42 };
    const view = fitView(bounds(xs, ys), w, h, pad);
    let fits = [Infinity, Infinity, Infinity, Infinity];
    for (let i = 0; i < xs.length; i++) {
      const [px, py] = toScreen(view, w, h, xs[i], ys[i]);
      fits = [Math.min(fits[0], px), Math.min(fits[1], py), Math.min(fits[2], w - px), Math.min(fits[3], h - py)];
    }
    assert.ok(fits[0] >= 40 - 1e-9 && fits[1] >= 24 - 1e-9 && fits[2] >= 24 - 1e-9 && fits[3] >= 42 - 1e-9, `${fits}`);
    // the binding axis is filled exactly, both its margins met
    assert.ok(close(fits[0] + fits[2], 64) || close(fits[1] + fits[3], 66), `${fits}`);
    assert.ok(close(Math.abs(fits[0] - 40), Math.abs(fits[2] - 24)) || close(Math.abs(fits[1] - 24), Math.abs(fits[3] - 42)));
  }
  // a number is the same margin at every side
  const a = fitView(bounds(xs, ys), 500, 400, 30), b = fitView(bounds(xs, ys), 500, 400, { l: 30, t: 30, r: 30, b: 30 });
  assert.ok(close(a.cx, b.cx) && close(a.cy, b.cy) && close(a.s, b.s));
});
