// The bar chart's pure logic: axis ticks (linear and log), tick text, where the bars go, which
// category labels fit, and which bar is under the pointer. No DOM here: tests/js/bars.test.mjs runs it
// in node; app/ui/bars/__init__.py inlines it above bars.js.

// A "nice" step (1, 2 or 5 times a power of ten) that cuts `span` into about `target` parts.
export function niceStep(span, target = 5) {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const raw = span / Math.max(1, target);
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

// Linear axis over the values and 0: {lo, hi, ticks}, lo and hi on multiples of the step.
export function linearAxis(values, target = 5) {
  let lo = 0, hi = 0;
  for (const v of values) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (lo === hi) hi = lo + 1;
  const step = niceStep(hi - lo, target);
  const a = Math.floor(lo / step + 1e-9) * step, b = Math.ceil(hi / step - 1e-9) * step;
  const ticks = [];
  for (let k = Math.round(a / step); k <= Math.round(b / step); k++) ticks.push(+(k * step).toPrecision(12));
  return { lo: a, hi: b, ticks, step, log: false };
}

// Log axis over the positive values: whole decades, {lo, hi} as powers of ten, at most ~8 ticks.
export function logAxis(values) {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) if (v > 0 && Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (lo === Infinity) { lo = 1; hi = 10; }
  let a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi));
  if (a === b) b = a + 1;
  const every = Math.max(1, Math.ceil((b - a) / 8));
  const ticks = [];
  for (let e = a; e <= b; e += every) ticks.push(10 ** e);
  return { lo: 10 ** a, hi: 10 ** b, ticks, step: every, log: true };
}

// Where value v sits between the axis ends, 0 (bottom) to 1 (top); values at or below a log axis's
// bottom sit on it.
export function fraction(axis, v) {
  if (axis.log) {
    const a = Math.log10(axis.lo), b = Math.log10(axis.hi);
    return v > 0 ? Math.min(1, Math.max(0, (Math.log10(v) - a) / (b - a))) : 0;
  }
  return (v - axis.lo) / (axis.hi - axis.lo);
}

// A tick's text: powers of ten as 1e-6 on a log axis; on a linear axis as few digits as the step needs.
export function tickText(axis, v) {
  if (axis.log) {
    const e = Math.round(Math.log10(v));
    return e >= -2 && e <= 3 ? String(+(10 ** e).toPrecision(3)) : `1e${e}`;
  }
  if (v === 0) return "0";
  const big = Math.max(Math.abs(axis.lo), Math.abs(axis.hi));
  if (big >= 1e5 || big < 1e-3) return v.toExponential(1).replace("e+", "e");
  const digits = Math.max(0, -Math.floor(Math.log10(axis.step) + 1e-9));
  return v.toFixed(Math.min(digits, 6));
}

// n bars across `width` pixels starting at `left`: each bar's centre and width (a fifth of a slot is gap).
export function barSlots(n, left, width) {
  const slot = width / Math.max(1, n);
  const bar = Math.max(1, Math.min(slot * 0.8, 80));
  return Array.from({ length: n }, (_, i) => ({ x: left + slot * (i + 0.5), w: bar, slot }));
}

// Every k-th category label, k the smallest step at which labels of these pixel widths do not overlap
// (with `pad` pixels between) on slots `slot` pixels apart.
export function labelEvery(widths, slot, pad = 6) {
  const widest = widths.reduce((m, w) => Math.max(m, w), 0);
  return Math.max(1, Math.ceil((widest + pad) / Math.max(slot, 1e-9)));
}

// The bar under pixel x (its slot, full height), or -1.
export function barAt(slots, x) {
  for (let i = 0; i < slots.length; i++) if (Math.abs(x - slots[i].x) <= slots[i].slot / 2) return i;
  return -1;
}

// ---------------------------------------------------------------- for keyboard and screen-reader users
// (counted, spoken, listed and extremes come from app/ui/access/logic.js, inlined ahead of this file.)

// Bar i's value as the chart writes it: the page's own text for it, else four significant digits.
export function barValue(d, i) {
  const v = d.values[i];
  if (v == null || !Number.isFinite(v)) return "no value";
  return (d.text && d.text[i]) || String(+v.toPrecision(4));
}

// The chart's accessible name: its title, else what its bars measure, else its first labels.
export function barsName(d) {
  if (d.title) return d.title;
  if (d.yTitle) return `Bar chart of ${d.yTitle}`;
  return d.labels.length ? `Bar chart of ${listed(d.labels, 3)}` : "Bar chart";
}

// The bars drawn in another colour than most of them (the page's highlight); none when all share one.
export function highlighted(colors) {
  if (!colors || !colors.length) return [];
  const counts = new Map();
  for (const c of colors) counts.set(c, (counts.get(c) || 0) + 1);
  const usual = [...counts].sort((a, b) => b[1] - a[1])[0][0];
  return counts.size > 1 ? colors.flatMap((c, i) => (c === usual ? [] : [i])) : [];
}

// What the bars show, said in a few sentences: how many, the highest and the lowest with their values, every
// bar's value when there are 12 or fewer, the highlighted bars and the reference lines.
export function describeBars(d) {
  const n = d.labels.length;
  if (!n) return "A bar chart with no bars.";
  const out = [`${counted(n, "bar")}${d.yTitle ? ` of ${d.yTitle}` : ""}${d.logY ? ", on a log scale" : ""}.`];
  const [hi, lo] = extremes(d.values);
  if (hi < 0) out.push("No bar has a value.");
  else if (n > 1 && hi !== lo) {
    out.push(`Highest: ${d.labels[hi]}, ${barValue(d, hi)}. Lowest: ${d.labels[lo]}, ${barValue(d, lo)}.`);
  }
  if (n <= 12) out.push(`Values: ${d.labels.map((label, i) => `${label} ${barValue(d, i)}`).join("; ")}.`);
  const marked = highlighted(d.colors);
  if (marked.length) out.push(`Highlighted: ${listed(marked.map((i) => d.labels[i]))}.`);
  const rules = d.rules || [];
  if (rules.length) {
    out.push(`${rules.length === 1 ? "A reference line" : "Reference lines"} at ` +
             `${listed(rules.map((r) => `${spoken(r.y)}${r.label ? ` (${r.label})` : ""}`))}.`);
  }
  return out.join(" ");
}

// What the keys say on reaching bar i: "label: value", the tooltip's fields, and where it stands.
export function barSpoken(d, i) {
  const fields = (d.hover || []).map((f) => `; ${f.name} ${f.values[i]}`).join("");
  return `${d.labels[i]}: ${barValue(d, i)}${fields}. Bar ${i + 1} of ${d.labels.length}.`;
}

// The table view: a row per bar, its label, its value and the tooltip's fields.
export function barsTable(d) {
  const fields = d.hover || [];
  return {
    columns: ["bar", d.yTitle || "value", ...fields.map((f) => f.name)],
    n: d.labels.length,
    row: (i) => [d.labels[i], barValue(d, i), ...fields.map((f) => f.values[i])],
  };
}

// The bar an arrow key (or Home, End) goes to from bar `at` (-1: none yet) of n; -1 for a key that moves none,
// `at` itself at either end.
export function barStep(at, n, key) {
  if (!n) return -1;
  if (key === "Home") return 0;
  if (key === "End") return n - 1;
  if (key === "ArrowRight") return at < 0 ? 0 : Math.min(n - 1, at + 1);
  if (key === "ArrowLeft") return at < 0 ? n - 1 : Math.max(0, at - 1);
  return -1;
}
