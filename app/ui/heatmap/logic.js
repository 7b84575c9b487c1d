// The heatmap's pure logic: colours from a scale's stops, which cell is under the pointer, how many labels
// fit beside cells of a given size. No DOM here: tests/js/heatmap.test.mjs runs it in node;
// app/ui/heatmap/__init__.py inlines it above heatmap.js.

// The colour at t in [0, 1] on a scale given as stops [[t, r, g, b], ...] (t ascending), linearly between
// stops; NaN is grey.
export function colourAt(stops, t) {
  if (!(t === t)) return [200, 200, 200];
  if (t <= stops[0][0]) return stops[0].slice(1);
  for (let k = 1; k < stops.length; k++) {
    const [t1, r1, g1, b1] = stops[k];
    if (t <= t1) {
      const [t0, r0, g0, b0] = stops[k - 1], f = (t - t0) / (t1 - t0 || 1);
      return [Math.round(r0 + (r1 - r0) * f), Math.round(g0 + (g1 - g0) * f), Math.round(b0 + (b1 - b0) * f)];
    }
  }
  return stops[stops.length - 1].slice(1);
}

// Where value v sits on [lo, hi], clamped to [0, 1] (NaN stays NaN).
export function unit(v, lo, hi) {
  if (!(v === v)) return NaN;
  return hi > lo ? Math.min(1, Math.max(0, (v - lo) / (hi - lo))) : 0.5;
}

// n x n values (row-major) as RGBA pixels, one per cell.
export function paint(z, n, stops, lo, hi) {
  const out = new Uint8ClampedArray(n * n * 4);
  for (let k = 0; k < n * n; k++) {
    const c = colourAt(stops, unit(z[k], lo, hi));
    out[4 * k] = c[0]; out[4 * k + 1] = c[1]; out[4 * k + 2] = c[2]; out[4 * k + 3] = 255;
  }
  return out;
}

// The cell [row, col] of an n x n panel drawn at (x0, y0) with side `size` pixels under pixel (x, y), or null.
export function cellAt(x, y, x0, y0, size, n) {
  if (x < x0 || y < y0 || x >= x0 + size || y >= y0 + size) return null;
  return [Math.min(n - 1, Math.floor(((y - y0) / size) * n)), Math.min(n - 1, Math.floor(((x - x0) / size) * n))];
}

// Every k-th label, k the smallest step that leaves `need` pixels per label on cells `cell` pixels apart.
export function labelStep(cell, need = 13) {
  return Math.max(1, Math.ceil(need / Math.max(cell, 1e-9)));
}

// ---------------------------------------------------------------- for keyboard and screen-reader users
// (counted, spoken, listed and extremes come from app/ui/access/logic.js, inlined ahead of this file.)

// A cell's value as said and tabled: three significant digits, the very large and small as powers; "no value"
// for NaN.
export function cellValue(v) {
  if (v == null || !(v === v)) return "no value";
  if (v === 0) return "0";
  return Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(2) : String(+v.toPrecision(3));
}

// The heatmap's accessible name: its panels' titles.
export function heatName(panels) {
  const titles = panels.map((p) => p.title).filter(Boolean);
  return titles.length ? listed(titles) : "Heatmap";
}

// What the panels show, said in a few sentences: per panel its title, its size and its lowest and highest
// cells (their row and column names and values). `panels`: [{title, z}] with z the n x n values, row-major.
export function describeHeatmap(names, panels) {
  const n = names.length;
  if (!panels.length || !n) return "A heatmap with no cells.";
  const out = [`${counted(panels.length, "matrix", "matrices")} over the same ${counted(n, "row")} and columns` +
               `${n <= 12 ? ` (${listed(names)})` : ""}.`];
  const cell = (z, k) => `${cellValue(z[k])} at row ${names[Math.floor(k / n)]}, column ${names[k % n]}`;
  for (const p of panels) {
    const [hi, lo] = extremes(p.z);
    out.push(hi < 0 ? `${p.title || "A matrix"}: ${n} by ${n}, no values.`
      : `${p.title || "A matrix"}: ${n} by ${n}; lowest ${cell(p.z, lo)}; highest ${cell(p.z, hi)}.`);
  }
  return out.join(" ");
}

// What the keys say on reaching cell (row, col) of panel j.
export function cellSpoken(names, panels, j, row, col) {
  const n = names.length, p = panels[j];
  return `${p.title || `Matrix ${j + 1}`}: row ${names[row]}, column ${names[col]}: ${cellValue(p.z[row * n + col])}.` +
    `${panels.length > 1 ? ` Panel ${j + 1} of ${panels.length}.` : ""}`;
}

// The table view in long form: a row per cell of every panel (panel, row, column, value).
export function heatTable(names, panels) {
  const n = names.length;
  return {
    columns: ["panel", "row", "column", "value"],
    n: panels.length * n * n,
    row: (k) => {
      const j = Math.floor(k / (n * n)), c = k % (n * n);
      return [panels[j].title || `Matrix ${j + 1}`, names[Math.floor(c / n)], names[c % n], cellValue(panels[j].z[c])];
    },
  };
}

// The cell a key moves to from `at` ({panel, row, col}, or null: none yet) over k panels of n x n: the arrows
// move one cell (Left and Right cross to the panel beside at its edge), Home and End go to the row's first and
// last column, Page Up and Page Down to the same cell of the panel before or after. null for any other key.
export function cellStep(at, key, n, k) {
  if (!n || !k) return null;
  const moves = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"];
  if (!moves.includes(key)) return null;
  if (!at) return { panel: 0, row: 0, col: 0 };
  let { panel, row, col } = at;
  if (key === "ArrowUp") row = Math.max(0, row - 1);
  else if (key === "ArrowDown") row = Math.min(n - 1, row + 1);
  else if (key === "Home") col = 0;
  else if (key === "End") col = n - 1;
  else if (key === "PageUp") panel = Math.max(0, panel - 1);
  else if (key === "PageDown") panel = Math.min(k - 1, panel + 1);
  else if (key === "ArrowRight") {
    if (col < n - 1) col += 1; else if (panel < k - 1) { panel += 1; col = 0; }
  } else if (col > 0) col -= 1;
  else if (panel > 0) { panel -= 1; col = n - 1; }
  return { panel, row, col };
}
