// The line chart's pure logic: a value axis over a range that need not hold zero, where a value sits on
// an axis, and which drawn point is nearest the pointer. No DOM here: tests/js/lines.test.mjs runs it in
// node; app/ui/lines/__init__.py inlines it, after the bar chart's logic (ticks on linear and log axes).

// A linear axis over [lo, hi] only (a curve's x, a rank): {lo, hi, ticks, step, log: false}, the ends
// on multiples of a 1-2-5 step, about `target` parts. Zero is not forced in, unlike the bars' axis.
export function rangeAxis(lo, hi, target = 6) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) { lo = 0; hi = 1; }
  if (lo > hi) [lo, hi] = [hi, lo];
  if (lo === hi) { lo -= 0.5; hi += 0.5; }
  const raw = (hi - lo) / Math.max(1, target);
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  const step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  const a = Math.floor(lo / step + 1e-9) * step, b = Math.ceil(hi / step - 1e-9) * step;
  const ticks = [];
  for (let k = Math.round(a / step); k <= Math.round(b / step); k++) ticks.push(+(k * step).toPrecision(12));
  return { lo: a, hi: b, ticks, step, log: false };
}

// Where v sits between an axis's ends, 0 to 1 (log axes by the logarithm; v <= 0 on a log axis: NaN,
// not drawn).
export function position(axis, v) {
  if (axis.log) {
    if (!(v > 0)) return NaN;
    const a = Math.log10(axis.lo), b = Math.log10(axis.hi);
    return (Math.log10(v) - a) / (b - a);
  }
  return (v - axis.lo) / (axis.hi - axis.lo);
}

// The drawn point nearest pixel (px, py) within `reach` pixels: {s, i} (series, index) or null.
// `drawn` is one array of [x, y] pixel pairs per series (NaN where a point is not drawn).
export function nearestPoint(drawn, px, py, reach = 12) {
  let best = null, bestD = reach * reach;
  drawn.forEach((pts, s) => {
    for (let i = 0; i < pts.length; i++) {
      const dx = pts[i][0] - px, dy = pts[i][1] - py, d = dx * dx + dy * dy;
      if (d <= bestD) { bestD = d; best = { s, i }; }
    }
  });
  return best;
}

// A number as the tooltip and the table write it: four significant digits, the very large and small as powers.
export function fmt(v) {
  if (v == null || !Number.isFinite(v)) return "no value";
  const a = Math.abs(v);
  return a !== 0 && (a >= 1e6 || a < 1e-3) ? v.toExponential(3) : String(+v.toPrecision(4));
}

// ---------------------------------------------------------------- for keyboard and screen-reader users
// (counted, spoken, listed, trend and extremes come from app/ui/access/logic.js, inlined ahead of this file.)

// The points of one curve in the order the arrows walk them: by x, left to right (ties in the order given),
// those without both an x and a y left out. `xs`, `ys`: numbers, with null or NaN where there is none.
export function walkOrder(xs, ys) {
  const ok = (v) => v != null && Number.isFinite(v);
  const out = [];
  for (let i = 0; i < xs.length; i++) if (ok(xs[i]) && ok(ys[i])) out.push(i);
  return out.sort((a, b) => xs[a] - xs[b] || a - b);
}

// A curve's name as said: its own, else "line k" (k from 1).
export function lineName(d, k) {
  return d.series[k].name || `line ${k + 1}`;
}

// The chart's accessible name: its title, else what it plots against what, else its curves' names.
export function linesName(d) {
  if (d.title) return d.title;
  if (d.yTitle) return `Line chart of ${d.yTitle}${d.xTitle ? ` against ${d.xTitle}` : ""}`;
  const names = d.series.map((s) => s.name).filter(Boolean);
  return names.length ? `Line chart of ${listed(names, 3)}` : "Line chart";
}

// What the curves show, said in a few sentences: the axes, then each curve (the first `most`) with its number
// of points, its x range, its first and last y, its trend and its peak; then the reference lines.
export function describeLines(d, most = 8) {
  const k = d.series.length;
  if (!k) return "A line chart with no lines.";
  const scale = (log) => (log ? " (log scale)" : "");
  const out = [`${counted(k, "line")}. Across: ${d.xTitle || "x"}${scale(d.logX)}; up: ${d.yTitle || "y"}${scale(d.logY)}.`];
  d.series.slice(0, most).forEach((s, j) => {
    const order = walkOrder(s.x, s.y), name = lineName(d, j);
    if (!order.length) { out.push(`${name}: no points.`); return; }
    const ys = order.map((i) => s.y[i]), first = order[0], last = order[order.length - 1];
    if (order.length === 1) { out.push(`${name}: 1 point, at x ${spoken(s.x[first])}, y ${spoken(s.y[first])}.`); return; }
    const top = order[extremes(ys)[0]];
    out.push(`${name}: ${counted(order.length, "point")}, x from ${spoken(s.x[first])} to ${spoken(s.x[last])}; ` +
             `y starts at ${spoken(s.y[first])} and ends at ${spoken(s.y[last])}, ${trend(ys)}; ` +
             `highest ${spoken(s.y[top])} at x ${spoken(s.x[top])}.`);
  });
  if (k > most) out.push(`And ${counted(k - most, "more line")} (see the table).`);
  const rules = [...(d.vlines || []).map((r) => `${r.label || r.name || "a line"} at x ${spoken(r.x)}`),
                 ...(d.hlines || []).map((r) => `${r.label || r.name || "a line"} at y ${spoken(r.y)}`)];
  if (rules.length) out.push(`Marked: ${listed(rules)}.`);
  return out.join(" ");
}

// What the keys say on reaching point i of curve k: the point's own name, the curve's, its x and y, and where it
// stands on the curve (`at` of `of`, counted from 1 along the walk).
export function lineSpoken(d, k, i, at, of) {
  const s = d.series[k], own = s.text ? s.text[i] : null;
  return `${own ? `${own}, ` : ""}${lineName(d, k)}: ${d.xTitle || "x"} ${fmt(s.x[i])}, ${d.yTitle || "y"} ` +
    `${fmt(s.y[i])}. Point ${at} of ${of}.`;
}

// The table view in long form: a row per point of every curve (curve, x, y, and the point's name when the
// curves name their points).
export function linesTable(d) {
  const rows = [];
  d.series.forEach((s, k) => { for (let i = 0; i < s.x.length; i++) rows.push([k, i]); });
  const named = d.series.some((s) => s.text);
  return {
    columns: ["series", ...(named ? ["point"] : []), d.xTitle || "x", d.yTitle || "y"],
    n: rows.length,
    row: (r) => {
      const [k, i] = rows[r], s = d.series[k];
      return [lineName(d, k), ...(named ? [s.text ? s.text[i] : ""] : []), fmt(s.x[i]), fmt(s.y[i])];
    },
  };
}

// Where in `order` (a walk, see walkOrder) the point nearest x lies: the place to land on when Up or Down
// switches curves. -1 for an empty walk.
export function nearestAlong(xs, order, x) {
  let best = -1, bestD = Infinity;
  order.forEach((i, p) => { const dist = Math.abs(xs[i] - x); if (dist < bestD) { bestD = dist; best = p; } });
  return best;
}
