// The 3-D view's pure logic (app/ui/view3d/logic.js): the projection, the painting order, the nearest point.
// Run with node's own test runner: `node --test tests/js/` (tests/unit/test_map_js.py does).

import { test } from "node:test";
import assert from "node:assert/strict";

import { project, projectAll, depthOrder, nearestProjected } from "../../app/ui/view3d/logic.js";

const close = (a, b) => Math.abs(a - b) < 1e-9;

test("the projection turns about the vertical axis, tips towards the viewer and keeps lengths", () => {
  assert.deepEqual(project(1, 2, 3, 0, 0), [1, 3, 2]);  // no turn: x right, z up, y away
  const [r, u, d] = project(1, 0, 0, Math.PI / 2, 0);
  assert.ok(close(r, 0) && close(u, 0) && close(d, 1));  // a quarter turn sends x away from the viewer
  const [r2, u2, d2] = project(0, 0, 1, 0, Math.PI / 2);
  assert.ok(close(r2, 0) && close(u2, 0) && close(d2, 1));  // tipped a quarter: up now points away
  for (const [x, y, z, yaw, pitch] of [[1, -2, 0.5, 0.7, -0.3], [3, 1, -4, 2.1, 1.2]]) {
    const p = project(x, y, z, yaw, pitch);
    assert.ok(close(Math.hypot(...p), Math.hypot(x, y, z)));  // a rotation: lengths kept
  }
});

test("points are placed about the centre at the given scale, screen y pointing down", () => {
  const p = projectAll(new Float32Array([0, 1]), new Float32Array([0, 0]), new Float32Array([0, 1]), 0, 0, 10, 50, 40);
  assert.deepEqual([p.sx[0], p.sy[0], p.sx[1], p.sy[1]], [50, 40, 60, 30]);
});

test("the farthest points are painted first, ties by index", () => {
  assert.deepEqual(depthOrder(new Float32Array([0.5, 2, -1, 2])), [1, 3, 0, 2]);
});

test("the pointer finds the nearest point within its radius, the nearer to the viewer among equals", () => {
  const sx = new Float32Array([10, 20, 20]), sy = new Float32Array([10, 10, 10]), depth = new Float32Array([0, 5, 1]);
  assert.equal(nearestProjected(sx, sy, depth, 11, 11, 6), 0);
  assert.equal(nearestProjected(sx, sy, depth, 20, 12, 6), 2);
  assert.equal(nearestProjected(sx, sy, depth, 40, 40, 6), -1);
});
