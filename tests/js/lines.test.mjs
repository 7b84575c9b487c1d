// The line chart's pure logic (app/ui/lines/logic.js): a range axis, positions on linear and log axes, and
// the point under the pointer. Run with node's own test runner: `node --test tests/js/`.

import { test } from "node:test";
import assert from "node:assert/strict";

import { rangeAxis, position, nearestPoint } from "../../app/ui/lines/logic.js";

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
