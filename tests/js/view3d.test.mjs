// The 3-D view's pure logic (app/ui/view3d/logic.js): the projection, the painting order, the nearest point, the
// keys' turns and what a screen reader is told. Run with node's own test runner: `node --test tests/js/`
// (tests/unit/test_map_js.py does).

import { test } from "node:test";
import assert from "node:assert/strict";

import * as access from "../../app/ui/access/logic.js";
import {
  project, projectAll, depthOrder, nearestProjected, coordText, viewName, span, describeView, anglesSpoken, turnBy,
  viewTable,
} from "../../app/ui/view3d/logic.js";

// The component finds the shared helpers (counted, spoken, listed) inlined ahead of its logic; here, as globals.
Object.assign(globalThis, access);

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

const CLOUD = { x: new Float32Array([0, 1, 2]), y: new Float32Array([-1, 0, 1]), z: new Float32Array([5, 5, 5]),
                ids: new Int32Array([10, 11, 12]) };
const MARKS = [{ name: "inspected", ids: [11], xyz: [1, 0, 5] },
               { name: "neighbours", ids: [10, 12, 40], xyz: [0, -1, 5, 2, 1, 5, 7, 7, 7] }];

test("a view is named by its title, else by its points and marks", () => {
  assert.equal(viewName("Swiss roll", 3, MARKS), "Swiss roll");
  assert.equal(viewName("", 3, MARKS), "3-D view of 3 points, marking inspected and neighbours");
  assert.equal(viewName("", 1, []), "3-D view of 1 point");
});

test("the description counts the points, gives their reach on each axis, the marks and the segments", () => {
  assert.deepEqual(span(new Float32Array([2, NaN, -1])), [-1, 2]);
  assert.equal(span([NaN]), null);
  const about = describeView(CLOUD, MARKS, 4);
  assert.ok(about.startsWith("3 points in three dimensions. They reach x from 0 to 2, y from -1 to 1 and z from 5 to 5."), about);
  assert.ok(about.includes("Marked as inspected: point 11.") && about.includes("Marked as neighbours: 3 points, 10, 12 and 40."), about);
  assert.ok(about.endsWith("4 segments join points under them."), about);
  assert.equal(describeView({ x: [], y: [], z: [] }, []), "0 points in three dimensions.");
});

test("the keys turn, tip and zoom the view within bounds, and Home goes back to the first view", () => {
  const home = { yaw: 0.5, pitch: 0.3 }, a = { yaw: 0.5, pitch: 0.3, zoom: 1 };
  assert.ok(close(turnBy(a, "ArrowRight", home).yaw, 0.5 + Math.PI / 12));
  assert.ok(close(turnBy(a, "ArrowLeft", home).yaw, 0.5 - Math.PI / 12));
  assert.ok(close(turnBy(a, "ArrowUp", home).pitch, 0.3 - Math.PI / 12));
  assert.equal(turnBy({ ...a, pitch: 1.45 }, "ArrowDown", home).pitch, 1.5);
  assert.equal(turnBy(a, "+", home).zoom, 1.25);
  assert.equal(turnBy({ ...a, zoom: 0.21 }, "-", home).zoom, 0.2);
  assert.deepEqual(turnBy({ yaw: 3, pitch: -1, zoom: 4 }, "Home", home), { yaw: 0.5, pitch: 0.3, zoom: 1 });
  assert.equal(turnBy(a, "x", home), null);
  assert.equal(anglesSpoken({ yaw: -Math.PI / 2, pitch: Math.PI / 9, zoom: 1.5625 }), "Turned 270 degrees, tipped 20 degrees, zoom 1.56.");
});

test("the table has a row per point with the marks it carries, then the marked points not in the cloud", () => {
  assert.equal(coordText(1 / 3), "0.3333");
  const t = viewTable(CLOUD, MARKS);
  assert.deepEqual(t.columns, ["point", "x", "y", "z", "marked as"]);
  assert.equal(t.n, 4);
  assert.deepEqual(t.row(0), ["10", "0", "-1", "5", "neighbours"]);
  assert.deepEqual(t.row(1), ["11", "1", "0", "5", "inspected"]);
  assert.deepEqual(t.row(3), ["40", "7", "7", "7", "neighbours"]);
});
