// The heatmap's pure logic (app/ui/heatmap/logic.js): colours between stops, cells under the pointer,
// labels that fit. Run with node's own test runner: `node --test tests/js/` (tests/unit/test_map_js.py does).

import { test } from "node:test";
import assert from "node:assert/strict";

import { colourAt, unit, paint, cellAt, labelStep } from "../../app/ui/heatmap/logic.js";

const BLUES = [[0, 247, 251, 255], [0.5, 107, 174, 214], [1, 8, 48, 107]];

test("a colour is interpolated between the stops around it, and clamped at the ends", () => {
  assert.deepEqual(colourAt(BLUES, 0), [247, 251, 255]);
  assert.deepEqual(colourAt(BLUES, 1), [8, 48, 107]);
  assert.deepEqual(colourAt(BLUES, 0.5), [107, 174, 214]);
  assert.deepEqual(colourAt(BLUES, 0.25), [177, 213, 235]);
  assert.deepEqual(colourAt(BLUES, -3), [247, 251, 255]);
  assert.deepEqual(colourAt(BLUES, 7), [8, 48, 107]);
  assert.deepEqual(colourAt(BLUES, NaN), [200, 200, 200]);
});

test("values map onto the scale's range, clamped, a flat range to its middle", () => {
  assert.equal(unit(5, 0, 10), 0.5); assert.equal(unit(-1, 0, 10), 0); assert.equal(unit(11, 0, 10), 1);
  assert.equal(unit(3, 3, 3), 0.5); assert.ok(Number.isNaN(unit(NaN, 0, 1)));
  // a Laplacian's colours centred on 0: -lmax is the scale's low end, +lmax its high end
  assert.equal(unit(-0.4, -0.4, 0.4), 0); assert.equal(unit(0, -0.4, 0.4), 0.5);
});

test("a matrix is painted row by row, one opaque pixel a cell", () => {
  const z = new Float32Array([0, 1, 0.5, NaN]);
  const px = paint(z, 2, BLUES, 0, 1);
  assert.equal(px.length, 16);
  assert.deepEqual(Array.from(px.slice(0, 4)), [247, 251, 255, 255]);
  assert.deepEqual(Array.from(px.slice(4, 8)), [8, 48, 107, 255]);
  assert.deepEqual(Array.from(px.slice(8, 12)), [107, 174, 214, 255]);
  assert.deepEqual(Array.from(px.slice(12, 16)), [200, 200, 200, 255]);
});

test("the cell under the pointer is found by row and column, and nothing outside the panel", () => {
  assert.deepEqual(cellAt(10, 10, 10, 10, 100, 4), [0, 0]);
  assert.deepEqual(cellAt(109.9, 60, 10, 10, 100, 4), [2, 3]);
  assert.deepEqual(cellAt(35, 84.9, 10, 10, 100, 4), [2, 1]);
  assert.equal(cellAt(9.9, 50, 10, 10, 100, 4), null);
  assert.equal(cellAt(50, 110, 10, 10, 100, 4), null);
});

test("labels are thinned to leave each the pixels it needs", () => {
  assert.equal(labelStep(20), 1); assert.equal(labelStep(13), 1); assert.equal(labelStep(6), 3);
  assert.equal(labelStep(1.5), 9); assert.equal(labelStep(0), labelStep(1e-9));
});
