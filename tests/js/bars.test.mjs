// The bar chart's pure logic (app/ui/bars/logic.js): ticks, tick text, bar slots, label thinning, hit test, and
// what a screen reader is told. Run with node's own test runner: `node --test tests/js/` (tests/unit/test_map_js.py
// does).

import { test } from "node:test";
import assert from "node:assert/strict";

import * as access from "../../app/ui/access/logic.js";
import {
  niceStep, linearAxis, logAxis, fraction, tickText, barSlots, labelEvery, barAt,
  barValue, barsName, highlighted, describeBars, barSpoken, barsTable, barStep,
} from "../../app/ui/bars/logic.js";

// The component finds the shared helpers (counted, spoken, ...) inlined ahead of its logic; here, as globals.
Object.assign(globalThis, access);

test("a nice step is 1, 2 or 5 times a power of ten and cuts the span into about the parts asked", () => {
  for (const [span, target] of [[1, 5], [0.37, 4], [123456, 6], [7e-9, 5], [3, 3]]) {
    const s = niceStep(span, target);
    const mant = s / 10 ** Math.floor(Math.log10(s) + 1e-12);
    assert.ok([1, 2, 5, 10].some((m) => Math.abs(mant - m) < 1e-9), `${s}`);
    const parts = span / s;
    assert.ok(parts >= target / 2.6 && parts <= target * 1.01, `${span} / ${s} = ${parts}`);
  }
});

test("a linear axis covers every value and zero, its ticks evenly spaced on its ends", () => {
  for (const values of [[0.2, 0.5, -0.1], [3, 7, 12], [-5, -2], [0.0001, 0.0003], [4, 4]]) {
    const a = linearAxis(values);
    for (const v of [...values, 0]) assert.ok(a.lo <= v + 1e-12 && v <= a.hi + 1e-12, `${v} in [${a.lo}, ${a.hi}]`);
    assert.equal(a.ticks[0], +a.lo.toPrecision(12));
    assert.equal(a.ticks[a.ticks.length - 1], +a.hi.toPrecision(12));
    for (let k = 1; k < a.ticks.length; k++) assert.ok(Math.abs(a.ticks[k] - a.ticks[k - 1] - a.step) < a.step * 1e-6);
    assert.ok(a.ticks.length >= 2 && a.ticks.length <= 12);
    if (Math.min(...values) >= 0) assert.equal(a.lo, 0);  // bars of positive values start on the axis
  }
});

test("a log axis spans whole decades around the positive values and ignores zeros", () => {
  const a = logAxis([1e-16, 3e-9, 2e-7, 0, 5e-4]);
  assert.equal(a.lo, 1e-16); assert.equal(a.hi, 1e-3);
  assert.ok(a.ticks.length <= 9 && a.ticks[0] === 1e-16);
  assert.equal(fraction(a, 1e-16), 0); assert.equal(fraction(a, 1e-3), 1); assert.equal(fraction(a, 0), 0);
  assert.ok(Math.abs(fraction(a, 10 ** -9.5) - 6.5 / 13) < 1e-12);
  const one = logAxis([5, 5]);
  assert.ok(one.lo <= 5 && 5 <= one.hi && one.hi > one.lo);
});

test("tick text has the digits the step needs, exponents for the very small and powers of ten", () => {
  const a = linearAxis([0.25, -0.1]);
  assert.deepEqual(a.ticks.map((t) => tickText(a, t)), a.ticks.map((t) => (t === 0 ? "0" : t.toFixed(1))));
  const b = linearAxis([2e-6, 5e-6]);
  assert.ok(b.ticks.slice(1).every((t) => /e-6$/.test(tickText(b, t))));
  const c = logAxis([1e-12, 0.5]);
  assert.equal(tickText(c, 1e-12), "1e-12"); assert.equal(tickText(c, 1), "1"); assert.equal(tickText(c, 0.01), "0.01");
});

test("bars sit in equal slots inside the plot and the hit test finds the bar under the pointer", () => {
  const slots = barSlots(8, 40, 400);
  assert.equal(slots.length, 8);
  assert.ok(slots.every((s) => s.x - s.w / 2 >= 40 && s.x + s.w / 2 <= 440 && s.w < s.slot));
  slots.forEach((s, i) => { assert.equal(barAt(slots, s.x), i); assert.equal(barAt(slots, s.x + s.slot * 0.45), i); });
  assert.equal(barAt(slots, 39), -1); assert.equal(barAt(slots, 441), -1);
});

test("category labels are thinned until none overlaps the next", () => {
  assert.equal(labelEvery([20, 20, 20], 50), 1);
  for (const [widths, slot] of [[[30, 44, 30, 60], 20], [[10, 10], 3], [[100], 7]]) {
    const k = labelEvery(widths, slot);
    const widest = Math.max(...widths);
    assert.ok(k * slot >= widest + 6 && (k - 1) * slot < widest + 6, `${k}`);
  }
});

const CHART = {
  labels: ["alpha", "beta", "gamma", "delta"], values: [0.42, 1.5, -0.3, null], text: ["0.420", "1.500", "-0.300", "nan"],
  colors: ["#3b5bdb", "#e8590c", "#3b5bdb", "#3b5bdb"], title: "", yTitle: "weight", logY: false,
  hover: [{ name: "rank", values: ["2", "1", "3", "4"] }], rules: [{ y: 1, label: "threshold", color: "#495057" }],
};

test("a bar's value is the page's own text for it, or four digits, and 'no value' where there is none", () => {
  assert.equal(barValue(CHART, 0), "0.420");
  assert.equal(barValue(CHART, 3), "no value");
  assert.equal(barValue({ ...CHART, text: null }, 1), "1.5");
  assert.equal(barValue({ values: [2 / 3] }, 0), "0.6667");
});

test("a chart is named by its title, else by what its bars measure, else by its first labels", () => {
  assert.equal(barsName({ ...CHART, title: "Weights" }), "Weights");
  assert.equal(barsName(CHART), "Bar chart of weight");
  assert.equal(barsName({ ...CHART, yTitle: "" }), "Bar chart of alpha, beta, gamma and 1 more");
  assert.equal(barsName({ labels: [], title: "", yTitle: "" }), "Bar chart");
});

test("the highlighted bars are those not in the usual colour, none when all share one", () => {
  assert.deepEqual(highlighted(CHART.colors), [1]);
  assert.deepEqual(highlighted(["#a", "#a"]), []);
  assert.deepEqual(highlighted(null), []);
});

test("the description counts the bars, names the highest and lowest and, for a few bars, every value", () => {
  const about = describeBars(CHART);
  assert.ok(about.startsWith("4 bars of weight."), about);
  assert.ok(about.includes("Highest: beta, 1.500. Lowest: gamma, -0.300."), about);
  assert.ok(about.includes("Values: alpha 0.420; beta 1.500; gamma -0.300; delta no value."), about);
  assert.ok(about.includes("Highlighted: beta.") && about.includes("A reference line at 1 (threshold)."), about);
  const many = { labels: Array.from({ length: 13 }, (_, i) => `b${i}`), values: Array.from({ length: 13 }, (_, i) => i) };
  const said = describeBars(many);
  assert.ok(said.includes("13 bars.") && said.includes("Highest: b12, 12. Lowest: b0, 0."), said);
  assert.ok(!said.includes("Values:"), "13 bars are too many to read out one by one");
  assert.equal(describeBars({ labels: [], values: [] }), "A bar chart with no bars.");
  assert.ok(describeBars({ labels: ["a"], values: [null] }).includes("No bar has a value."));
  assert.ok(describeBars({ ...CHART, logY: true }).startsWith("4 bars of weight, on a log scale."));
});

test("a bar reached by the keys is said with its value, its fields and its place; the table has a row a bar", () => {
  assert.equal(barSpoken(CHART, 1), "beta: 1.500; rank 1. Bar 2 of 4.");
  const t = barsTable(CHART);
  assert.deepEqual(t.columns, ["bar", "weight", "rank"]);
  assert.equal(t.n, 4);
  assert.deepEqual(t.row(2), ["gamma", "-0.300", "3"]);
});

test("the arrows walk the bars and stop at either end; Home and End go to the first and the last", () => {
  assert.equal(barStep(-1, 4, "ArrowRight"), 0);
  assert.equal(barStep(-1, 4, "ArrowLeft"), 3);
  assert.equal(barStep(1, 4, "ArrowRight"), 2);
  assert.equal(barStep(3, 4, "ArrowRight"), 3);
  assert.equal(barStep(0, 4, "ArrowLeft"), 0);
  assert.equal(barStep(2, 4, "Home"), 0);
  assert.equal(barStep(0, 4, "End"), 3);
  assert.equal(barStep(0, 4, "ArrowUp"), -1);
  assert.equal(barStep(-1, 0, "ArrowRight"), -1);
});
