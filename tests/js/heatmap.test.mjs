// The heatmap's pure logic (app/ui/heatmap/logic.js): colours between stops, cells under the pointer,
// labels that fit, and what a screen reader is told. Run with node's own test runner: `node --test tests/js/`
// (tests/unit/test_map_js.py does).

import { test } from "node:test";
import assert from "node:assert/strict";

import * as access from "../../app/ui/access/logic.js";
import {
  colourAt, unit, paint, cellAt, labelStep, cellValue, heatName, describeHeatmap, cellSpoken, heatTable, cellStep,
} from "../../app/ui/heatmap/logic.js";

// The component finds the shared helpers (counted, listed, extremes, ...) inlined ahead of its logic; here, as
// globals.
Object.assign(globalThis, access);

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

const NAMES = ["ant", "bee", "cat"];
const PANELS = [
  { title: "Near", z: new Float32Array([1, 0.5, 0.25, 0.5, 1, 0.125, 0.25, 0.125, 1]) },
  { title: "Far", z: new Float32Array([0, -2, 3, -2, 0, NaN, 3, NaN, 0]) },
];

test("a cell's value is written with three digits, 'no value' for NaN", () => {
  assert.equal(cellValue(0.125), "0.125"); assert.equal(cellValue(2 / 3), "0.667"); assert.equal(cellValue(0), "0");
  assert.equal(cellValue(NaN), "no value"); assert.equal(cellValue(123456), "1.23e+5");
});

test("a heatmap is named by its panels' titles", () => {
  assert.equal(heatName(PANELS), "Near and Far");
  assert.equal(heatName([{ title: "" }]), "Heatmap");
});

test("the description gives each panel's size and its lowest and highest cells by row and column", () => {
  const about = describeHeatmap(NAMES, PANELS);
  assert.ok(about.startsWith("2 matrices over the same 3 rows and columns (ant, bee and cat)."), about);
  assert.ok(about.includes("Near: 3 by 3; lowest 0.125 at row bee, column cat; highest 1 at row ant, column ant."), about);
  assert.ok(about.includes("Far: 3 by 3; lowest -2 at row ant, column bee; highest 3 at row ant, column cat."), about);
  assert.ok(describeHeatmap(["a"], [{ title: "Empty", z: new Float32Array([NaN]) }]).includes("Empty: 1 by 1, no values."));
  assert.equal(describeHeatmap([], []), "A heatmap with no cells.");
});

test("a cell reached by the keys is said with its panel, row, column and value; the table has a row a cell", () => {
  assert.equal(cellSpoken(NAMES, PANELS, 1, 1, 2), "Far: row bee, column cat: no value. Panel 2 of 2.");
  assert.equal(cellSpoken(NAMES, PANELS.slice(0, 1), 0, 2, 0), "Near: row cat, column ant: 0.25.");
  const t = heatTable(NAMES, PANELS);
  assert.deepEqual(t.columns, ["panel", "row", "column", "value"]);
  assert.equal(t.n, 18);
  assert.deepEqual(t.row(5), ["Near", "bee", "cat", "0.125"]);
  assert.deepEqual(t.row(14), ["Far", "bee", "cat", "no value"]);
});

test("the arrows move a cell at a time, crossing to the panel beside at its edges, and stop at the ends", () => {
  const at = (panel, row, col) => ({ panel, row, col });
  assert.deepEqual(cellStep(null, "ArrowDown", 3, 2), at(0, 0, 0));
  assert.deepEqual(cellStep(at(0, 1, 1), "ArrowRight", 3, 2), at(0, 1, 2));
  assert.deepEqual(cellStep(at(0, 1, 2), "ArrowRight", 3, 2), at(1, 1, 0));
  assert.deepEqual(cellStep(at(1, 1, 2), "ArrowRight", 3, 2), at(1, 1, 2));
  assert.deepEqual(cellStep(at(1, 1, 0), "ArrowLeft", 3, 2), at(0, 1, 2));
  assert.deepEqual(cellStep(at(0, 0, 0), "ArrowLeft", 3, 2), at(0, 0, 0));
  assert.deepEqual(cellStep(at(0, 0, 1), "ArrowUp", 3, 2), at(0, 0, 1));
  assert.deepEqual(cellStep(at(0, 2, 1), "ArrowDown", 3, 2), at(0, 2, 1));
  assert.deepEqual(cellStep(at(0, 1, 1), "ArrowDown", 3, 2), at(0, 2, 1));
  assert.deepEqual(cellStep(at(0, 1, 1), "End", 3, 2), at(0, 1, 2));
  assert.deepEqual(cellStep(at(0, 1, 1), "Home", 3, 2), at(0, 1, 0));
  assert.deepEqual(cellStep(at(0, 1, 1), "PageDown", 3, 2), at(1, 1, 1));
  assert.deepEqual(cellStep(at(0, 1, 1), "PageUp", 3, 2), at(0, 1, 1));
  assert.equal(cellStep(at(0, 1, 1), "x", 3, 2), null);
  assert.equal(cellStep(null, "ArrowDown", 0, 2), null);
});
