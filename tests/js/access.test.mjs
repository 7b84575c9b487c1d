// What keyboard and screen-reader users get from every canvas component, its pure parts
// (app/ui/access/logic.js), and the map's description (app/ui/map/logic.js's describeMap, pointSpoken).
// Run with node's own test runner: `node --test tests/js/` (tests/unit/test_map_js.py does).

import { test } from "node:test";
import assert from "node:assert/strict";

import {
  counted, spoken, listed, stepTo, extreme, closest, densest, trend, extremes, pageOf,
} from "../../app/ui/access/logic.js";

test("counts, numbers and lists read as a sentence says them", () => {
  assert.equal(counted(1, "point"), "1 point");
  assert.equal(counted(3000, "point"), "3,000 points");
  assert.equal(spoken(0.123456), "0.123");
  assert.equal(spoken(1367240), "1,367,240");
  assert.equal(spoken(NaN), "no value");
  assert.match(spoken(2.5e-12), /^2\.50 times 10 to the -12$/);
  assert.equal(listed(["a"]), "a");
  assert.equal(listed(["a", "b", "c"]), "a, b and c");
  assert.equal(listed(["a", "b", "c", "d"], 2), "a, b and 2 more");
});

test("an arrow goes to the nearest point within 45 degrees of its direction, else the least sideways one ahead", () => {
  // 0 at the origin; 1 right and a little up; 2 far right on the axis; 3 up-left; 4 right but far up (outside the cone)
  const xs = [0, 1, 3, -1, 1], ys = [0, 0.5, 0, 2, 4];
  assert.equal(stepTo(xs, ys, null, 0, 1, 0), 1);
  assert.equal(stepTo(xs, ys, null, 0, -1, 0), 3, "nothing in the left cone: the one ahead least to the side");
  assert.equal(stepTo(xs, ys, null, 0, 0, 1), 3);
  assert.equal(stepTo(xs, ys, null, 0, 0, -1), -1, "nothing below");
  assert.equal(stepTo(xs, ys, Uint8Array.from([1, 0, 1, 1, 1]), 0, 1, 0), 2, "a hidden point is skipped");
  // pixels per unit differ across and up (a map's are equal, a chart's need not be)
  assert.equal(stepTo([0, 1, 0], [0, 0, 0.2], null, 0, 1, 0, 1, 100), 1);
});

test("the extremes, the point nearest a place, and where points crowd", () => {
  const xs = [2, -1, 5, -1], ys = [0, 3, 1, -2];
  assert.equal(extreme(xs, ys, null, false), 3, "leftmost, the lower on a tie");
  assert.equal(extreme(xs, ys, null, true), 2);
  assert.equal(extreme(xs, ys, new Uint8Array(4), false), -1);
  assert.equal(closest(xs, ys, null, 4, 1), 2);
  const many = Array.from({ length: 40 }, (_, i) => i), up = many.map((i) => (i < 30 ? 10 : 0));
  const crowd = densest(many.map((i) => (i < 30 ? 9 : i - 30)), up, null);
  assert.equal(crowd.region, "upper right");
  assert.equal(crowd.share, 30 / 40);
  assert.equal(densest([1, 2], [1, 2], null), null);
});

test("trends, extremes and pages", () => {
  assert.equal(trend([1, 2, 5]), "rises overall");
  assert.equal(trend([5, 9, 1]), "falls overall");
  assert.equal(trend([1, 9, 1]), "ends about where it starts");
  assert.deepEqual(extremes([3, null, 7, -1]), [2, 3]);
  assert.deepEqual(pageOf(120, 50, 0), { start: 0, end: 50, pages: 3, at: 0 });
  assert.deepEqual(pageOf(120, 50, 9), { start: 100, end: 120, pages: 3, at: 2 });
  assert.deepEqual(pageOf(0, 50, 0), { start: 0, end: 0, pages: 1, at: 0 });
});

test("a map's description names its points, colours, groups, crowd, selection and inspected point", async () => {
  // app/ui/canvas.py puts the access logic ahead of the map's in one module: here, as globals
  Object.assign(globalThis, await import("../../app/ui/access/logic.js"));
  const { describeMap, pointSpoken } = await import("../../app/ui/map/logic.js");
  const n = 12, xs = Float32Array.from({ length: n }, (_, i) => (i < 9 ? 0 : 10)), ys = new Float32Array(n);
  const f = {
    n, x: xs, y: ys, ids: null, rowIds: true, labels: Array.from({ length: n }, (_, i) => `w${i}`),
    xTitle: "t-SNE 1", yTitle: "t-SNE 2", color: { kind: "category", names: ["news", "sport"], title: "topic" },
    codes: Int32Array.from({ length: n }, (_, i) => (i < 9 ? 0 : 1)), markers: [{ text: ["cluster A"] }],
    selected: new Set([1, 2]), rings: [{ label: true, indices: [10] }],
    hover: { fields: [{ name: "count", values: Array.from({ length: n }, (_, i) => String(i * 10)) }] },
  };
  const about = describeMap(f, Uint8Array.from({ length: n }, (_, i) => (i === 11 ? 0 : 1)));
  assert.match(about, /^A map of 12 points, 1 point hidden by the legend\./);
  assert.match(about, /Across: t-SNE 1; up: t-SNE 2\./);
  assert.match(about, /Colour by topic: news \(9\) and sport \(3\)\./);
  assert.match(about, /Named on the map: cluster A\./);
  assert.match(about, /Most points lie in the (lower )?left \(82% of them\)\./);
  assert.match(about, /The selection holds 2 points: w1 and w2\./);
  assert.match(about, /Inspected: w10\./);
  assert.equal(pointSpoken(f, 2), "w2; topic news; count 20. Point 3 of 12, selected.");
});
