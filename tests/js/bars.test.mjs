// The bar chart's pure logic (app/ui/bars/logic.js): ticks, tick text, bar slots, label thinning, hit test.
// Run with node's own test runner: `node --test tests/js/` (tests/unit/test_map_js.py does).

import { test } from "node:test";
import assert from "node:assert/strict";

import {
  niceStep, linearAxis, logAxis, fraction, tickText, barSlots, labelEvery, barAt,
} from "../../app/ui/bars/logic.js";

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
