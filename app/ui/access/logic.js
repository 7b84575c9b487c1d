// What every canvas component of the lab gives keyboard and screen-reader users, the pure parts: counts and
// lists written as a sentence says them, the next point in an arrow's direction, the extremes, where most
// points lie, a table's pages. No DOM here, so node's test runner checks it (tests/js/access.test.mjs);
// app/ui/canvas.py inlines it ahead of every component's own logic (the `export` words dropped).

// A count with its noun: "1 point", "3,000 points".
export function counted(n, noun, plural = `${noun}s`) {
  return `${Number(n).toLocaleString("en-US")} ${n === 1 ? noun : plural}`;
}

// A number as a sentence reads it: three significant digits, thousands grouped, tiny and huge ones as powers.
export function spoken(v) {
  if (v == null || !Number.isFinite(v)) return "no value";
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e7 || a < 1e-3)) return v.toExponential(2).replace("e", " times 10 to the ").replace("+", "");
  const r = Number(v.toPrecision(a >= 1000 ? 7 : 3));
  return r.toLocaleString("en-US", { maximumFractionDigits: 6 });
}

// "a", "a and b", "a, b and c", or the first `most` of them "and 5 more".
export function listed(items, most = 8) {
  const xs = items.map(String);
  if (xs.length > most) return `${xs.slice(0, most).join(", ")} and ${xs.length - most} more`;
  if (xs.length <= 1) return xs.join("");
  return `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`;
}

// The unit vector of an arrow key, in data units (up is +y).
export const DIRECTIONS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

// The point an arrow key moves to from point `from`: the nearest one whose direction from `from` lies within
// 45 degrees of (ux, uy) (distances in screen pixels: `sx` pixels per unit across, `sy` up), or, when that cone
// is empty, the one ahead (along the arrow) that lies least to the side. -1 when nothing lies ahead.
export function stepTo(xs, ys, keep, from, ux, uy, sx = 1, sy = 1) {
  const x0 = xs[from], y0 = ys[from];
  let best = -1, bestD = Infinity, wide = -1, wideD = Infinity;
  for (let i = 0; i < xs.length; i++) {
    if (i === from || (keep && !keep[i])) continue;
    const dx = (xs[i] - x0) * sx, dy = (ys[i] - y0) * sy;
    if (!(dx === dx && dy === dy)) continue;
    const along = dx * ux + dy * uy, side = Math.abs(dx * uy - dy * ux);
    if (along <= 0) continue;
    if (side <= along) {
      const d = along * along + side * side;
      if (d < bestD) { bestD = d; best = i; }
    } else {
      const d = along + 3 * side;
      if (d < wideD) { wideD = d; wide = i; }
    }
  }
  return best >= 0 ? best : wide;
}

// The leftmost (`last` false) or rightmost point shown, lowest or highest y on a tie; -1 when none is shown.
export function extreme(xs, ys, keep, last = false) {
  let best = -1;
  const sign = last ? -1 : 1;
  for (let i = 0; i < xs.length; i++) {
    if ((keep && !keep[i]) || !(xs[i] === xs[i] && ys[i] === ys[i])) continue;
    if (best < 0 || sign * (xs[i] - xs[best]) < 0 || (xs[i] === xs[best] && sign * (ys[i] - ys[best]) < 0)) best = i;
  }
  return best;
}

// The point nearest to (x, y), among those shown; -1 when none is.
export function closest(xs, ys, keep, x, y) {
  let best = -1, bestD = Infinity;
  for (let i = 0; i < xs.length; i++) {
    if (keep && !keep[i]) continue;
    const d = (xs[i] - x) ** 2 + (ys[i] - y) ** 2;
    if (d < bestD) { bestD = d; best = i; }
  }
  return best;
}

const REGIONS = [["lower left", "bottom", "lower right"], ["left", "centre", "right"], ["upper left", "top", "upper right"]];

// Where the points shown crowd: the ninth of their bounding box (3 x 3) holding the most of them, its name
// ("upper left", "centre", ...) and its share; null when fewer than 10 points are shown.
export function densest(xs, ys, keep) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, n = 0;
  for (let i = 0; i < xs.length; i++) {
    if ((keep && !keep[i]) || !(xs[i] === xs[i] && ys[i] === ys[i])) continue;
    x0 = Math.min(x0, xs[i]); x1 = Math.max(x1, xs[i]); y0 = Math.min(y0, ys[i]); y1 = Math.max(y1, ys[i]); n++;
  }
  if (n < 10) return null;
  const counts = new Array(9).fill(0), wx = (x1 - x0) || 1, wy = (y1 - y0) || 1;
  for (let i = 0; i < xs.length; i++) {
    if ((keep && !keep[i]) || !(xs[i] === xs[i] && ys[i] === ys[i])) continue;
    const c = Math.min(2, Math.floor(((xs[i] - x0) / wx) * 3)), r = Math.min(2, Math.floor(((ys[i] - y0) / wy) * 3));
    counts[r * 3 + c]++;
  }
  let k = 0;
  for (let j = 1; j < 9; j++) if (counts[j] > counts[k]) k = j;
  return { region: REGIONS[Math.floor(k / 3)][k % 3], share: counts[k] / n };
}

// How values change from first to last: "rises", "falls" or "stays level" (within 2% of their range).
export function trend(values) {
  const v = values.filter((x) => x != null && Number.isFinite(x));
  if (v.length < 2) return "has one value";
  const lo = Math.min(...v), hi = Math.max(...v), d = v[v.length - 1] - v[0];
  if (Math.abs(d) <= 0.02 * (hi - lo || Math.abs(hi) || 1)) return "ends about where it starts";
  return d > 0 ? "rises overall" : "falls overall";
}

// The index of the largest and of the smallest finite value: [hi, lo] (-1 when there is none).
export function extremes(values) {
  let hi = -1, lo = -1;
  values.forEach((v, i) => {
    if (v == null || !Number.isFinite(v)) return;
    if (hi < 0 || v > values[hi]) hi = i;
    if (lo < 0 || v < values[lo]) lo = i;
  });
  return [hi, lo];
}

// Page `k` (from 0) of `n` rows shown `size` at a time: its first row, one past its last, and how many pages.
export function pageOf(n, size, k) {
  const pages = Math.max(1, Math.ceil(n / size)), at = Math.min(Math.max(0, k), pages - 1);
  return { start: at * size, end: Math.min(n, (at + 1) * size), pages, at };
}

// A page's main picture in presentation mode is whole in the window under Streamlit's top bar and the tour's
// sticky bar, with `around` px of its own furniture (tools, title, legend): as tall as asked, or less in a short
// window (a projector's 720 px), never under 280 px.
// A component's type at the page's scale (`scale`: 1, or larger in presentation mode): `px` pixels times it.
export function typeFont(px, scale = 1, weight = "") {
  return `${weight ? weight + " " : ""}${Math.round(px * (scale > 0 ? scale : 1))}px 'Source Sans Pro', 'Source Sans 3', sans-serif`;
}

// Fitted components to redraw when the tour's bar changes height (its sentence is written after the page's run).
const FITTED = (globalThis.__labFitted = globalThis.__labFitted || new Set());

export function fitted(redraw) {
  FITTED.add(redraw);
  return () => FITTED.delete(redraw);
}

function watchBar() {
  const bar = tourBar();
  if (!bar || globalThis.__labBarWatched === bar) return;
  globalThis.__labBarWatched = bar;
  let last = bar.getBoundingClientRect().height;
  new ResizeObserver(() => {
    const now = bar.getBoundingClientRect().height;
    if (Math.abs(now - last) < 1) return;
    last = now;
    for (const redraw of [...FITTED]) { try { redraw(); } catch (err) { FITTED.delete(redraw); } }
  }).observe(bar);
}

// The tour's bar, whose height (it grows as its sentence is written) a fitted picture watches.
export function tourBar() {
  return typeof document === "undefined" ? null : document.querySelector('[class*="st-key-lab_tour_"]');
}

export function fitToWindow(height, fit, around = 0) {
  if (fit && typeof document !== "undefined") watchBar();
  if (!fit || typeof document === "undefined" || !globalThis.innerHeight) return height;
  const bar = tourBar();
  const reserved = 60 + (bar ? bar.getBoundingClientRect().height : 0) + 8 + around;
  return Math.max(280, Math.min(height, Math.floor(globalThis.innerHeight - reserved)));
}
