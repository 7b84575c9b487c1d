// The line chart's pure logic (app/ui/lines/logic.js): a range axis, positions on linear and log axes, the
// point under the pointer, and what a screen reader is told. Run with node's own test runner:
// `node --test tests/js/`.

import { test } from "node:test";
import assert from "node:assert/strict";

import * as access from "../../app/ui/access/logic.js";
import {
  rangeAxis, position, nearestPoint, fmt, walkOrder, lineName, linesName, describeLines, lineSpoken, linesTable,
  nearestAlong,
} from "../../app/ui/lines/logic.js";

// The component finds the shared helpers (counted, spoken, trend, ...) inlined ahead of its logic; here, as globals.
Object.assign(globalThis, access);

test("a range axis covers the values on 1-2-5 steps without forcing zero in", () => {
  for (const [lo, hi] of [[1, 34], [0.013, 0.41], [-3.2, -0.7], [1500, 1510], [5, 5], [1e-7, 3e-7]]) {
    const a = rangeAxis(lo, hi);
    assert.ok(a.lo <= lo + 1e-12 && hi <= a.hi + 1e-12, `[${lo}, ${hi}] in [${a.lo}, ${a.hi}]`);
    assert.ok(a.hi > a.lo && a.ticks.length >= 2 && a.ticks.length <= 13, `${a.ticks}`);
    const mant = a.step / 10 ** Math.floor(Math.log10(a.step) + 1e-12);
    assert.ok([1, 2, 5, 10].some((m) => Math.abs(mant - m) < 1e-9), `${a.step}`);
    for (let k = 1; k < a.ticks.length; k++) assert.ok(Math.abs(a.ticks[k] - a.ticks[k - 1] - a.step) < a.step * 1e-6);
  }
  assert.ok(rangeAxis(1500, 1510).lo >= 1000);  // far from zero: the axis does not stretch down to it
  assert.deepEqual(rangeAxis(9, 2).lo <= 2 && rangeAxis(9, 2).hi >= 9, true);  // ends in either order
});

test("a position is 0 at an axis's bottom and 1 at its top, by the logarithm on a log axis", () => {
  const lin = { lo: -2, hi: 6, log: false }, log = { lo: 1, hi: 1e4, log: true };
  assert.equal(position(lin, -2), 0); assert.equal(position(lin, 6), 1); assert.equal(position(lin, 2), 0.5);
  assert.equal(position(log, 1), 0); assert.equal(position(log, 1e4), 1);
  assert.ok(Math.abs(position(log, 100) - 0.5) < 1e-12);
  assert.ok(Number.isNaN(position(log, 0)) && Number.isNaN(position(log, -3)));  // not drawn on a log axis
});

test("the nearest drawn point within reach is found across series, and nothing beyond reach", () => {
  const drawn = [[[10, 10], [50, 50], [NaN, NaN]], [[52, 47], [200, 10]]];
  assert.deepEqual(nearestPoint(drawn, 51, 48), { s: 1, i: 0 });
  assert.deepEqual(nearestPoint(drawn, 49, 51), { s: 0, i: 1 });
  assert.deepEqual(nearestPoint(drawn, 12, 9), { s: 0, i: 0 });
  assert.equal(nearestPoint(drawn, 120, 120), null);
  assert.equal(nearestPoint(drawn, 120, 120, 200) !== null, true);
  assert.equal(nearestPoint([[], []], 0, 0), null);
});

const CHART = {
  title: "", xTitle: "step", yTitle: "score", logX: false, logY: false,
  series: [
    { name: "rises", x: [3, 1, 2, 4], y: [9, 1, 4, 16], text: null },
    { name: "", x: [1, 2, null, 4], y: [5, 3, 2, 1], text: ["a", "b", "c", "d"] },
    { name: "best", x: [2], y: [4], text: null },
  ],
  vlines: [{ x: 2, label: "chosen", color: "#495057", name: "" }], hlines: [],
};

test("numbers are written with four significant digits, powers for the very large and small", () => {
  assert.equal(fmt(2 / 3), "0.6667"); assert.equal(fmt(1234567), "1.235e+6"); assert.equal(fmt(null), "no value");
});

test("the arrows walk a curve's points left to right, leaving out those without an x or a y", () => {
  assert.deepEqual(walkOrder([3, 1, 2, 4], [9, 1, 4, 16]), [1, 2, 0, 3]);
  assert.deepEqual(walkOrder([1, 2, null, 4], [5, NaN, 2, 1]), [0, 3]);
  assert.deepEqual(walkOrder([2, 1, 2], [0, 0, 0]), [1, 0, 2]);  // ties in the order given
  assert.deepEqual(nearestAlong([10, 20, 30], [0, 1, 2], 24), 1);
  assert.equal(nearestAlong([], [], 3), -1);
});

test("a chart is named by its title, else by what it plots against what, else by its curves", () => {
  assert.equal(linesName({ ...CHART, title: "Scores" }), "Scores");
  assert.equal(linesName(CHART), "Line chart of score against step");
  assert.equal(linesName({ ...CHART, yTitle: "" }), "Line chart of rises and best");
  assert.equal(linesName({ series: [{ name: "" }] }), "Line chart");
  assert.equal(lineName(CHART, 1), "line 2");
});

test("the description names each curve with its points, x range, first and last y, trend and peak", () => {
  const about = describeLines(CHART);
  assert.ok(about.startsWith("3 lines. Across: step; up: score."), about);
  assert.ok(about.includes("rises: 4 points, x from 1 to 4; y starts at 1 and ends at 16, rises overall; highest 16 at x 4."), about);
  assert.ok(about.includes("line 2: 3 points, x from 1 to 4; y starts at 5 and ends at 1, falls overall; highest 5 at x 1."), about);
  assert.ok(about.includes("best: 1 point, at x 2, y 4.") && about.includes("Marked: chosen at x 2."), about);
  const many = { series: Array.from({ length: 10 }, (_, k) => ({ name: `s${k}`, x: [0, 1], y: [k, k] })) };
  const said = describeLines(many);
  assert.ok(said.includes("s7: 2 points") && !said.includes("s8:") && said.includes("And 2 more lines"), said);
  assert.ok(said.includes("ends about where it starts"), said);
  assert.ok(describeLines({ ...CHART, logX: true }).includes("Across: step (log scale)"));
});

test("a point reached by the keys is said with its name, curve, x, y and place; the table is in long form", () => {
  assert.equal(lineSpoken(CHART, 1, 3, 3, 3), "d, line 2: step 4, score 1. Point 3 of 3.");
  assert.equal(lineSpoken(CHART, 0, 0, 3, 4), "rises: step 3, score 9. Point 3 of 4.");
  const t = linesTable(CHART);
  assert.deepEqual(t.columns, ["series", "point", "step", "score"]);
  assert.equal(t.n, 9);
  assert.deepEqual(t.row(0), ["rises", "", "3", "9"]);
  assert.deepEqual(t.row(6), ["line 2", "c", "no value", "2"]);
  assert.deepEqual(linesTable({ ...CHART, series: [CHART.series[0]] }).columns, ["series", "step", "score"]);
});
