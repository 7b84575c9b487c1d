// The map's pure logic: decoding, the view, hit tests, label placement and frame matching.
// No DOM here, so node's test runner checks it (tests/js/). map.js is drawn on top of it;
// the Python side inlines this file ahead of map.js (the `export` words are dropped there).

// Float32 (or Int32, Uint16) values sent from Python as base64 of their little-endian bytes.
export function decode(b64, Type = Float32Array) {
  if (b64 == null) return null;
  if (typeof b64 === "object" && typeof b64.text === "string") {  // a long array kept by the BlobStore: decoded once for each type it is read as
    let done = DECODED.get(b64);
    if (!done) DECODED.set(b64, (done = new Map()));
    if (!done.has(Type)) done.set(Type, decode(b64.text, Type));
    return done.get(Type);
  }
  const bin = typeof atob === "function" ? atob(b64) : Buffer.from(b64, "base64").toString("binary");
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Type(bytes.buffer);
}

// ------------------------------------------------------------ long arrays, sent once
// A map's long base64 arrays (app/ui/map's BLOB_CHARS) travel once: {blob: digest, b64: text} the first time and
// {blob: digest} while the browser holds them. The store keeps them, the least recently used let go past
// `maxEntries` or `maxChars`; a decoded array is kept with its blob, so a colour change on a million points neither
// receives nor decodes the coordinates again. Decoded arrays are shared between frames: nothing writes into them.
export class HeldArray {
  constructor(digest, text) { this.digest = digest; this.text = text; }
  toJSON() { return { blob: this.digest }; }
}
const DECODED = new WeakMap();

function isRef(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v) && typeof v.blob === "string" &&
    Object.keys(v).every((k) => k === "blob" || k === "b64");
}

export class BlobStore {
  constructor(maxEntries = 96, maxChars = 512 * 2 ** 20) {
    this.maxEntries = maxEntries; this.maxChars = maxChars; this.held = new Map(); this.chars = 0;
  }

  // Keeps the texts `data` brings; returns the digests it names that the store does not hold.
  take(data) {
    const refs = [];
    walkRefs(data, (r) => refs.push(r));
    for (const r of refs) if (r.b64 != null) this.put(r.blob, r.b64);
    const missing = [];
    for (const r of refs) {
      const b = this.held.get(r.blob);
      if (!b) { if (!missing.includes(r.blob)) missing.push(r.blob); continue; }
      this.held.delete(r.blob); this.held.set(r.blob, b);  // most recently used last
    }
    this.trim(new Set(refs.map((r) => r.blob)));
    return missing;
  }

  put(digest, text) {
    if (this.held.has(digest)) return;
    this.held.set(digest, new HeldArray(digest, text));
    this.chars += text.length;
  }

  // Lets the least recently used go past the limits, never one that `keep` (the data in hand) names.
  trim(keep) {
    for (const [d, b] of this.held) {
      if (this.held.size <= this.maxEntries && this.chars <= this.maxChars) break;
      if (keep.has(d)) continue;
      this.held.delete(d); this.chars -= b.text.length;
    }
  }

  // `data` with each reference replaced by its HeldArray (which decode reads); take() first.
  resolve(data) {
    if (isRef(data)) return this.held.get(data.blob) ?? null;
    if (Array.isArray(data)) return data.some((v) => v !== null && typeof v === "object") ? data.map((v) => this.resolve(v)) : data;
    if (data === null || typeof data !== "object") return data;
    const out = {};
    for (const k of Object.keys(data)) out[k] = this.resolve(data[k]);
    return out;
  }
}

function walkRefs(node, visit) {
  if (isRef(node)) { visit(node); return; }
  if (Array.isArray(node)) { for (const v of node) if (v !== null && typeof v === "object") walkRefs(v, visit); return; }
  if (node !== null && typeof node === "object") for (const k of Object.keys(node)) walkRefs(node[k], visit);
}

// A number as a tooltip writes it: `digits` significant digits, trailing zeros dropped ("%.3g"-like).
export function significant(v, digits = 3) {
  return Number.isFinite(v) ? String(Number(v.toPrecision(digits))) : String(v);
}

// What names point i: its id, its row number when the ids are the rows, or "#i" when there are none.
export function pointName(frame, i) {
  return frame.ids ? String(frame.ids[i]) : frame.rowIds ? String(i) : `#${i}`;
}

// The tooltip's heading for point i: its label, or its name when it has none (a label left empty so the map
// writes nothing beside the point still names it in the tooltip).
export function tipTitle(frame, i) {
  const label = frame.labels ? frame.labels[i] : null;
  return label != null && label !== "" ? String(label) : pointName(frame, i);
}

// A tooltip field's value for point i: its text, its number written with `digits` digits, or the name its code
// stands for (a column of a few repeated values is sent as codes into its names).
export function fieldValue(field, i) {
  if (field.nums) return significant(field.nums[i], field.digits || 3);
  if (field.cds) return field.cds[i] < 0 ? "" : String(field.names[field.cds[i]]);
  return field.values[i] ?? "(not sent at this size)";
}

// Text sent for some points only (a map past 20,000 points: {index: int32 base64, text: [...]}) as one entry a
// point, null for the others; a plain list (or null) as it is.
export function spreadTexts(texts, n) {
  if (texts == null || Array.isArray(texts)) return texts ?? null;
  const out = new Array(n).fill(null), index = decode(texts.index, Int32Array);
  for (let k = 0; k < index.length; k++) out[index[k]] = texts.text[k];
  return out;
}

// Whether the view box [x0, y0, x1, y1] (data units) holds a shown point without text (`texts`: one entry a point,
// null where none was sent; a map past 20,000 points gets text for 20,000): the page is then asked for the text of
// the points in view.
export function lacksTexts(xs, ys, keep, texts, box) {
  if (!texts) return false;
  const [x0, y0, x1, y1] = box;
  for (let i = 0; i < xs.length; i++) {
    if (keep && !keep[i]) continue;
    const x = xs[i], y = ys[i];
    if (x >= x0 && x <= x1 && y >= y0 && y <= y1 && texts[i] == null) return true;
  }
  return false;
}

// Bounds of the points drawn (skipping NaN), as [x0, y0, x1, y1]; a single point gets a unit box.
export function bounds(xs, ys, keep) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i < xs.length; i++) {
    if (keep && !keep[i]) continue;
    const x = xs[i], y = ys[i];
    if (!(x === x && y === y)) continue;
    if (x < x0) x0 = x; if (x > x1) x1 = x;
    if (y < y0) y0 = y; if (y > y1) y1 = y;
  }
  if (x0 === Infinity) return [-1, -1, 1, 1];
  // a flat axis gets a tenth of the other's span (or one unit when both are flat), so a line of points
  // stays drawn at the scale of its spread instead of shrinking to fit a unit box
  const dx = x1 - x0, dy = y1 - y0;
  if (dx < 1e-12) { const h = dy < 1e-12 ? 0.5 : dy * 0.05; x0 -= h; x1 += h; }
  if (dy < 1e-12) { const h = dx < 1e-12 ? 0.5 : dx * 0.05; y0 -= h; y1 += h; }
  return [x0, y0, x1, y1];
}

// The view that fits a box into a w x h canvas with one scale for both axes (an embedding's
// distances are what the eye reads): centre (cx, cy) and pixels per unit s.
// The box that frames some points (a search's matches): their bounds, widened on each axis to at least a
// quarter of the whole map's span so one point or a tight group is shown with its surroundings.
export function focusBounds(xs, ys, idx) {
  const keep = new Uint8Array(xs.length);
  let any = false;
  for (const i of idx) if (i >= 0 && i < xs.length) { keep[i] = 1; any = true; }
  if (!any) return bounds(xs, ys);
  const [a0, b0, a1, b1] = bounds(xs, ys);
  let [x0, y0, x1, y1] = bounds(xs, ys, keep);
  const mx = (a1 - a0) / 4, my = (b1 - b0) / 4;
  if (x1 - x0 < mx) { const c = (x0 + x1) / 2; x0 = c - mx / 2; x1 = c + mx / 2; }
  if (y1 - y0 < my) { const c = (y0 + y1) / 2; y0 = c - my / 2; y1 = c + my / 2; }
  return [x0, y0, x1, y1];
}

// `pad`: the pixels kept free at every side, or at each side ({l, t, r, b}: room for the axis titles).
export function fitView(box, w, h, pad = 24) {
  const [x0, y0, x1, y1] = box;
  const p = typeof pad === "number" ? { l: pad, t: pad, r: pad, b: pad } : pad;
  const s0 = Math.min((w - p.l - p.r) / (x1 - x0), (h - p.t - p.b) / (y1 - y0)), s = s0 > 0 && isFinite(s0) ? s0 : 1;
  // the box's middle goes to the middle of the room left free, which is off the canvas's middle when the pads differ
  return { cx: (x0 + x1) / 2 - (p.l - p.r) / 2 / s, cy: (y0 + y1) / 2 + (p.t - p.b) / 2 / s, s };
}

export function toScreen(view, w, h, x, y) {
  return [w / 2 + (x - view.cx) * view.s, h / 2 - (y - view.cy) * view.s];
}

export function toData(view, w, h, px, py) {
  return [view.cx + (px - w / 2) / view.s, view.cy - (py - h / 2) / view.s];
}

// Zoom by factor f about the screen point (px, py), which stays where it is.
export function zoomAt(view, w, h, px, py, f) {
  const [x, y] = toData(view, w, h, px, py);
  const s = view.s * f;
  return { s, cx: x - (px - w / 2) / s, cy: y + (py - h / 2) / s };
}

// Indices of the points inside the data box [x0, x1] x [y0, y1] (either corner order).
export function boxHits(xs, ys, keep, ax, ay, bx, by) {
  const x0 = Math.min(ax, bx), x1 = Math.max(ax, bx), y0 = Math.min(ay, by), y1 = Math.max(ay, by);
  const out = [];
  for (let i = 0; i < xs.length; i++) {
    if (keep && !keep[i]) continue;
    const x = xs[i], y = ys[i];
    if (x >= x0 && x <= x1 && y >= y0 && y <= y1) out.push(i);
  }
  return out;
}

// Whether (x, y) lies inside the polygon [[x, y], ...] (even-odd rule: crossings of a ray to +x).
export function inPolygon(poly, x, y) {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i], [xj, yj] = poly[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

// Indices of the points inside a lasso drawn in data coordinates.
export function lassoHits(xs, ys, keep, poly, grid = null) {
  if (poly.length < 3) return [];
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of poly) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
  if (grid) return gridBox(grid, xs, ys, keep, x0, y0, x1, y1).filter((i) => inPolygon(poly, xs[i], ys[i]));
  const out = [];
  for (let i = 0; i < xs.length; i++) {
    if (keep && !keep[i]) continue;
    const x = xs[i], y = ys[i];
    if (x < x0 || x > x1 || y < y0 || y > y1) continue;
    if (inPolygon(poly, x, y)) out.push(i);
  }
  return out;
}

// The point nearest to the data point (x, y) within r data units, or -1.
export function nearest(xs, ys, keep, x, y, r) {
  let best = -1, bestD = r * r;
  for (let i = 0; i < xs.length; i++) {
    if (keep && !keep[i]) continue;
    const dx = xs[i] - x, dy = ys[i] - y, d = dx * dx + dy * dy;
    if (d <= bestD) { bestD = d; best = i; }
  }
  return best;
}

// A uniform grid over points (xs, ys): each point filed in the cell it falls in, the cells' members stored one
// after another (cell c holds order[start[c]] .. order[start[c + 1] - 1]). About `perCell` points a cell, so a
// hover or a box asks only the cells it touches instead of every point: O(n) to build, then a query costs its
// cells' points. Points with a NaN coordinate are left out.
export function gridIndex(xs, ys, perCell = 8) {
  const n = xs.length;
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = xs[i], y = ys[i];
    if (!(x === x && y === y)) continue;
    if (x < x0) x0 = x; if (x > x1) x1 = x;
    if (y < y0) y0 = y; if (y > y1) y1 = y;
  }
  if (x0 === Infinity) { x0 = y0 = 0; x1 = y1 = 1; }
  const w = Math.max(x1 - x0, 1e-12), h = Math.max(y1 - y0, 1e-12);
  const cells = Math.max(1, Math.min(1 << 22, Math.ceil(n / perCell)));
  const nx = Math.max(1, Math.min(4096, Math.round(Math.sqrt((cells * w) / h)))), ny = Math.max(1, Math.min(4096, Math.ceil(cells / nx)));
  const sx = nx / w, sy = ny / h;
  const cellOf = new Int32Array(n), count = new Int32Array(nx * ny + 1);
  for (let i = 0; i < n; i++) {
    const x = xs[i], y = ys[i];
    if (!(x === x && y === y)) { cellOf[i] = -1; continue; }
    const c = Math.min(ny - 1, Math.floor((y - y0) * sy)) * nx + Math.min(nx - 1, Math.floor((x - x0) * sx));
    cellOf[i] = c; count[c + 1]++;
  }
  for (let c = 0; c < nx * ny; c++) count[c + 1] += count[c];
  const start = count.slice(), fill = count.slice(0, nx * ny), order = new Int32Array(count[nx * ny]);
  for (let i = 0; i < n; i++) if (cellOf[i] >= 0) order[fill[cellOf[i]]++] = i;
  return { x0, y0, sx, sy, nx, ny, start, order, n };
}

// The grid's cell columns and rows a data box [ax, bx] x [ay, by] touches, clamped to the grid.
function gridSpan(g, ax, ay, bx, by) {
  const clamp = (v, m) => Math.max(0, Math.min(m - 1, v));
  return [clamp(Math.floor((Math.min(ax, bx) - g.x0) * g.sx), g.nx), clamp(Math.floor((Math.max(ax, bx) - g.x0) * g.sx), g.nx),
          clamp(Math.floor((Math.min(ay, by) - g.y0) * g.sy), g.ny), clamp(Math.floor((Math.max(ay, by) - g.y0) * g.sy), g.ny)];
}

// Indices of the points in a data box, from the grid: the cells it touches, each point then tested exactly.
export function gridBox(g, xs, ys, keep, ax, ay, bx, by) {
  const x0 = Math.min(ax, bx), x1 = Math.max(ax, bx), y0 = Math.min(ay, by), y1 = Math.max(ay, by);
  const [c0, c1, r0, r1] = gridSpan(g, x0, y0, x1, y1), out = [];
  for (let r = r0; r <= r1; r++) {
    for (let c = c0; c <= c1; c++) {
      const cell = r * g.nx + c;
      for (let k = g.start[cell]; k < g.start[cell + 1]; k++) {
        const i = g.order[k];
        if (keep && !keep[i]) continue;
        const x = xs[i], y = ys[i];
        if (x >= x0 && x <= x1 && y >= y0 && y <= y1) out.push(i);
      }
    }
  }
  return out.sort((a, b) => a - b);
}

// The point nearest to (x, y) within r data units, or -1, from the grid (ties: the highest index, as `nearest`).
export function gridNearest(g, xs, ys, keep, x, y, r) {
  const [c0, c1, r0, r1] = gridSpan(g, x - r, y - r, x + r, y + r);
  let best = -1, bestD = r * r;
  for (let row = r0; row <= r1; row++) {
    for (let c = c0; c <= c1; c++) {
      const cell = row * g.nx + c;
      for (let k = g.start[cell]; k < g.start[cell + 1]; k++) {
        const i = g.order[k];
        if (keep && !keep[i]) continue;
        const dx = xs[i] - x, dy = ys[i] - y, d = dx * dx + dy * dy;
        if (d < bestD || (d === bestD && i > best)) { bestD = d; best = i; }
      }
    }
  }
  return best;
}

export function overlaps(a, b) {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

// Greedy label placement without overlap. `cands` are {i, x, y, w, h, must, r} in screen pixels, in order of
// importance (those with `must` are placed first); r is the radius of the point's mark. Each label tries the
// spots around its point, a gap past its mark: right, left, above, below, then the four corners. A spot is out
// if it leaves the w x h canvas, covers a label already placed or one of `opts.blocked`'s boxes (the axis titles,
// the scale bar, the names of markers); of the spots left, the first that covers no other point's mark
// (`opts.dots`: {x, y, r, i, named}) is taken, else the one covering fewest (a mark that is itself labelled counts
// far more than a plain one). A label that finds no spot, or only spots over a labelled point, looks farther out
// (up to 6 rows or label widths away) for a free spot, which map.js joins to the point with a leader line: every
// `must` label, and every label when `opts.leaders` (a map with few labels names all its points). A `must` label
// with no free spot anywhere goes at its first spot inside the canvas, over others. Returns
// [{i, box: [x0, y0, x1, y1], leader, near}] (near: the farthest a label beside its point is from it, along either
// axis). A grid of cells keeps each test local, so 20,000 candidates cost a few
// milliseconds. `opts` may be a number: the gap (older callers).
export function placeLabels(cands, w, h, opts = {}) {
  if (typeof opts === "number") opts = { gap: opts };
  const gap = opts.gap ?? 3, leaders = !!opts.leaders, NAMED = 1000;
  const cell = 64, cols = Math.ceil(w / cell) + 1, grid = new Map(), dotGrid = new Map(), placed = [];
  const cellsOf = (b) => {
    const out = [];
    for (let cx = Math.max(0, Math.floor(b[0] / cell)); cx <= Math.floor(b[2] / cell); cx++)
      for (let cy = Math.max(0, Math.floor(b[1] / cell)); cy <= Math.floor(b[3] / cell); cy++) out.push(cy * cols + cx);
    return out;
  };
  const add = (g, c, v) => { if (!g.has(c)) g.set(c, []); g.get(c).push(v); };
  const free = (b) => {
    for (const c of cellsOf(b)) for (const o of grid.get(c) || []) if (overlaps(b, o)) return false;
    return true;
  };
  const put = (i, b, leader, near) => {
    placed.push({ i, box: b, leader, near });
    for (const c of cellsOf(b)) add(grid, c, b);
  };
  for (const b of opts.blocked || []) for (const c of cellsOf(b)) add(grid, c, b);
  for (const d of opts.dots || []) {
    if (!(d.x === d.x && d.y === d.y)) continue;
    for (const c of cellsOf([d.x - d.r, d.y - d.r, d.x + d.r, d.y + d.r])) add(dotGrid, c, d);
  }
  // what a box costs in marks covered (its own point's aside); a mark is counted once though it spans cells
  const cost = (b, self) => {
    let sum = 0;
    const seen = new Set();
    for (const c of cellsOf(b)) for (const d of dotGrid.get(c) || []) {
      if (d.i === self || seen.has(d)) continue;
      seen.add(d);
      const qx = Math.min(Math.max(d.x, b[0]), b[2]) - d.x, qy = Math.min(Math.max(d.y, b[1]), b[3]) - d.y;
      if (qx * qx + qy * qy < d.r * d.r) sum += d.named ? NAMED : 1;
    }
    return sum;
  };
  const inside = (b) => b[0] >= 0 && b[1] >= 0 && b[2] <= w && b[3] <= h;
  // the best free spot of `spots` (fewest marks covered, the first of equals): [box, cost] or null
  const best = (spots, c) => {
    let out = null;
    for (const [bx, by] of spots) {
      const b = [bx, by, bx + c.w, by + c.h];
      if (!inside(b) || !free(b)) continue;
      const k = cost(b, c.i);
      if (!out || k < out[1]) out = [b, k];
      if (k === 0) break;
    }
    return out;
  };
  const ordered = cands.filter((c) => c.must).concat(cands.filter((c) => !c.must));
  for (const c of ordered) {
    const g = (c.r || 0) + gap, { x, y } = c, near = Math.max(g, c.h / 2 + 1);
    let found = best(nearSpots(x, y, c.w, c.h, g), c), leader = false;
    if ((!found || found[1] >= NAMED) && (c.must || leaders)) {
      const far = best(farSpots(x, y, c.w, c.h, g), c);
      if (far && (!found || far[1] < found[1])) { found = far; leader = true; }
    }
    if (found) put(c.i, found[0], leader, near);
    else if (c.must) {
      // a label that must show goes at its first spot inside the canvas, and later ones avoid it
      const bx = Math.min(Math.max(0, x + g), w - c.w), by = Math.min(Math.max(0, y - c.h / 2), h - c.h);
      put(c.i, [bx, by, bx + c.w, by + c.h], false, near);
    }
  }
  return placed;
}

// The spots tried next to a point (top-left corners of a w x h label), g past its centre: right, left, above,
// below (each centred on the point), then the corners. Those above and below keep clear of the ones beside
// (half a label's height up or down at least), so that four labels fit round a point.
export function nearSpots(x, y, w, h, g) {
  const v = Math.max(g, h / 2 + 1), d = Math.min(g, v) * 0.75;
  return [
    [x + g, y - h / 2], [x - g - w, y - h / 2], [x - w / 2, y - v - h], [x - w / 2, y + v],
    [x + d, y - v - h], [x - d - w, y - v - h], [x + d, y + v], [x - d - w, y + v],
  ];
}

// The spots farther out, for a label joined to its point by a leader line: 1 to 6 steps (a row, or a third of the
// label's width) out in the same eight directions, nearest first.
export function farSpots(x, y, w, h, g) {
  const out = [];
  const e = Math.max(g, h / 2 + 1);
  for (let k = 1; k <= 6; k++) {
    const v = k * (h + 2), u = k * Math.max(h + 2, w / 3);
    out.push([x + g + u, y - h / 2], [x - g - u - w, y - h / 2], [x - w / 2, y - e - h - v], [x - w / 2, y + e + v],
      [x + g, y - e - h - v], [x - g - w, y - e - h - v], [x + g, y + e + v], [x - g - w, y + e + v]);
  }
  const away = ([bx, by]) => Math.hypot(Math.max(bx - x, 0, x - bx - w), Math.max(by - y, 0, y - by - h));
  return out.map((p) => [away(p), p]).sort((a, b) => a[0] - b[0]).map(([, p]) => p);
}

// Where a leader line from the point (x, y) meets the box of its label: the nearest point of the box.
export function leaderEnd(x, y, box) {
  return [Math.min(Math.max(x, box[0]), box[2]), Math.min(Math.max(y, box[1]), box[3])];
}

// For a glide from the frame on screen to a new one: for each new point, the index of the same
// item in the old frame, or -1. Items are matched by id when both frames carry ids, otherwise by
// position when both frames hold the same items (same `items` token).
export function matchFrames(oldFrame, newFrame) {
  const n = newFrame.n, out = new Int32Array(n).fill(-1);
  if (!oldFrame) return out;
  if (oldFrame.items != null && oldFrame.items === newFrame.items && oldFrame.n === n) {
    for (let i = 0; i < n; i++) out[i] = i;
    return out;
  }
  if (oldFrame.ids && newFrame.ids) {
    const at = new Map();
    oldFrame.ids.forEach((id, j) => at.set(id, j));
    for (let i = 0; i < n; i++) { const j = at.get(newFrame.ids[i]); if (j !== undefined) out[i] = j; }
  }
  return out;
}

// Positions t of the way (0..1, eased) from `from` to `to`; points with no old place appear at `to`.
export function tween(fromX, fromY, toX, toY, match, t) {
  const e = t >= 1 ? 1 : 1 - Math.pow(1 - t, 3);
  const n = toX.length, x = new Float32Array(n), y = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const j = match[i];
    if (j < 0 || !(fromX[j] === fromX[j])) { x[i] = toX[i]; y[i] = toY[i]; continue; }
    x[i] = fromX[j] + (toX[i] - fromX[j]) * e;
    y[i] = fromY[j] + (toY[i] - fromY[j]) * e;
  }
  return [x, y];
}

// The farthest a matched point moves from `from` to `to`, along either axis (0 when none moves);
// points with no old place are not counted (they appear at their place, they do not move).
export function largestMove(fromX, fromY, toX, toY, match) {
  let most = 0;
  for (let i = 0; i < match.length; i++) {
    const j = match[i];
    if (j < 0 || !(fromX[j] === fromX[j])) continue;
    most = Math.max(most, Math.abs(toX[i] - fromX[j]), Math.abs(toY[i] - fromY[j]));
  }
  return most;
}

// A colour scale as [position, [r, g, b]] stops; `ramp` gives the colour of t in 0..1.
export const SCALES = {
  viridis: [[0, [68, 1, 84]], [0.25, [59, 82, 139]], [0.5, [33, 145, 140]], [0.75, [94, 201, 98]], [1, [253, 231, 37]]],
  rdylgn: [[0, [215, 48, 39]], [0.25, [252, 141, 89]], [0.5, [255, 255, 191]], [0.75, [145, 207, 96]], [1, [26, 152, 80]]],
  rdbu: [[0, [178, 24, 43]], [0.25, [239, 138, 98]], [0.5, [247, 247, 247]], [0.75, [103, 169, 207]], [1, [33, 102, 172]]],
  plasma: [[0, [13, 8, 135]], [0.25, [126, 3, 168]], [0.5, [204, 71, 120]], [0.75, [248, 149, 64]], [1, [240, 249, 33]]],
};

export function ramp(stops, t) {
  if (!(t === t)) return "rgb(190,190,190)";
  t = Math.min(1, Math.max(0, t));
  for (let k = 1; k < stops.length; k++) {
    if (t <= stops[k][0]) {
      const [p0, c0] = stops[k - 1], [p1, c1] = stops[k], u = (t - p0) / (p1 - p0 || 1);
      return `rgb(${Math.round(c0[0] + (c1[0] - c0[0]) * u)},${Math.round(c0[1] + (c1[1] - c0[1]) * u)},${Math.round(c0[2] + (c1[2] - c0[2]) * u)})`;
    }
  }
  const c = stops[stops.length - 1][1];
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// A CSS colour ("#rgb", "#rrggbb", "rgb(r,g,b)" or "rgba(r,g,b,a)") as [r, g, b]; anything else is grey.
export function parseColour(css) {
  const s = String(css).trim();
  if (s[0] === "#") {
    const h = s.length === 4 ? s.slice(1).split("").map((c) => c + c).join("") : s.slice(1, 7);
    const v = parseInt(h, 16);
    if (h.length === 6 && v === v) return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }
  const m = s.match(/^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)/i);
  return m ? [+m[1], +m[2], +m[3]] : [128, 128, 128];
}

// The marks categories are drawn with, in turn, so that a category differs from the next by its shape as well
// as its colour (for readers who cannot tell the colours apart, and on a grey print).
export const MARKS = ["circle", "square", "triangle", "diamond", "plus", "cross"];

// The mark (an index into MARKS) of a category colour's k-th category: its own when the colour lists one per
// category (app/ui/map/__init__.py's categories does, so that no two entries look alike), MARKS in turn when it
// only says that there are marks, -1 (a disc, no mark) when there are none.
export function categoryMark(color, k) {
  const n = Array.isArray(color.marks) ? color.marks.length : 0;
  if (n) return MARKS.indexOf(color.marks[((k % n) + n) % n]);
  return color.marks ? ((k % MARKS.length) + MARKS.length) % MARKS.length : -1;
}

// Whether the offset (x, y) in pixels (y down) lies inside a mark of `shape` and radius r; the shapes have
// about the area of the circle of radius r.
function insideMark(shape, x, y, r) {
  const ax = Math.abs(x), ay = Math.abs(y);
  if (shape === "square") return ax <= 0.89 * r && ay <= 0.89 * r;
  if (shape === "diamond") return ax + ay <= 1.25 * r;
  if (shape === "triangle") {  // pointing up, its centroid on the point
    const h = 2.0 * r, top = -0.67 * h, base = 0.33 * h;
    return y >= top && y <= base && ax <= ((y - top) / h) * 1.15 * r;
  }
  if (shape === "plus") return (ax <= 0.42 * r && ay <= 1.2 * r) || (ay <= 0.42 * r && ax <= 1.2 * r);
  if (shape === "cross") {
    const u = Math.abs(x + y) / Math.SQRT2, v = Math.abs(x - y) / Math.SQRT2;
    return (u <= 0.42 * r && v <= 1.2 * r) || (v <= 0.42 * r && u <= 1.2 * r);
  }
  return x * x + y * y <= r * r;
}

// The pixels a mark of radius r (in pixels) covers around its centre, with the share of each pixel it
// covers (4 x 4 samples a pixel, so the edge is smooth): flat [dx, dy, coverage, ...]. A disc unless `shape`
// names another of MARKS.
export function discMask(r, shape = "circle") {
  const out = [], R = Math.ceil(1.25 * r + 0.5);
  for (let dy = -R; dy <= R; dy++) {
    for (let dx = -R; dx <= R; dx++) {
      let hits = 0;
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) {
          if (insideMark(shape, dx - 0.5 + (sx + 0.5) / 4, dy - 0.5 + (sy + 0.5) / 4, r)) hits++;
        }
      }
      if (hits) out.push(dx, dy, hits / 16);
    }
  }
  return out;
}

// Discs of points written straight into RGBA pixels (non-premultiplied, as ImageData holds them),
// each laid over what is there with `alpha` times its coverage: the same picture as filling a path of
// arcs, at a fraction of its cost when there are thousands of points. px, py: centres in pixels;
// order: the indices to draw, in drawing order; rgb[i]: [r, g, b] of point i; mask(i): its discMask.
const SHAPES = new WeakMap();

function shapeOf(mask) {
  let s = SHAPES.get(mask);
  if (!s) {
    const k = mask.length / 3, dx = new Int16Array(k), dy = new Int16Array(k), c = new Float32Array(k);
    let reach = 0;
    for (let q = 0; q < k; q++) {
      dx[q] = mask[3 * q]; dy[q] = mask[3 * q + 1]; c[q] = mask[3 * q + 2];
      reach = Math.max(reach, Math.abs(dx[q]), Math.abs(dy[q]));
    }
    s = { k, dx, dy, c, reach };
    SHAPES.set(mask, s);
  }
  return s;
}

export function blendDiscs(data, W, H, px, py, order, rgb, alpha, mask) {
  for (let k = 0; k < order.length; k++) {
    const i = order[k], cx = Math.round(px[i]), cy = Math.round(py[i]);
    if (!(cx === cx && cy === cy)) continue;
    const { k: m, dx, dy, c, reach } = shapeOf(mask(i)), col = rgb(i), r = col[0], g = col[1], b = col[2];
    if (cx + reach < 0 || cy + reach < 0 || cx - reach >= W || cy - reach >= H) continue;
    const inside = cx - reach >= 0 && cy - reach >= 0 && cx + reach < W && cy + reach < H;
    for (let q = 0; q < m; q++) {
      const x = cx + dx[q], y = cy + dy[q];
      if (!inside && (x < 0 || y < 0 || x >= W || y >= H)) continue;
      const o = (y * W + x) << 2, a = alpha * c[q], d3 = data[o + 3];
      if (d3 === 0) { data[o] = r; data[o + 1] = g; data[o + 2] = b; data[o + 3] = a * 255; continue; }
      const da = d3 / 255, rest = da * (1 - a), oa = a + rest, put = a / oa, keep = rest / oa;
      data[o] = r * put + data[o] * keep;
      data[o + 1] = g * put + data[o + 1] * keep;
      data[o + 2] = b * put + data[o + 2] * keep;
      data[o + 3] = oa * 255;
    }
  }
}

// The same discs stamped opaquely for a frame in motion (a glide): each pixel a disc covers at least half
// of takes the point's colour at `alpha` (no blending with what is under it), written as one 32-bit word.
// A glide's frames must each draw in a few milliseconds at 20,000 points for the motion to be smooth; the
// blended picture (blendDiscs) is drawn again once the points stop. data32: a Uint32Array view of RGBA
// pixels; packed(i): the point's colour as packRGBA gives it.
export function packRGBA(rgb, alpha) {
  const a = Math.round(Math.min(1, Math.max(0, alpha)) * 255);
  return ((a << 24) | (rgb[2] << 16) | (rgb[1] << 8) | rgb[0]) >>> 0; // little-endian RGBA in memory
}

export function stampDiscs(data32, W, H, px, py, order, packed, mask) {
  for (let k = 0; k < order.length; k++) {
    const i = order[k], cx = Math.round(px[i]), cy = Math.round(py[i]);
    if (!(cx === cx && cy === cy)) continue;
    const { k: m, dx, dy, c, reach } = shapeOf(mask(i)), word = packed(i);
    if (cx + reach < 0 || cy + reach < 0 || cx - reach >= W || cy - reach >= H) continue;
    const inside = cx - reach >= 0 && cy - reach >= 0 && cx + reach < W && cy + reach < H;
    for (let q = 0; q < m; q++) {
      if (c[q] < 0.5) continue;
      const x = cx + dx[q], y = cy + dy[q];
      if (!inside && (x < 0 || y < 0 || x >= W || y >= H)) continue;
      data32[y * W + x] = word;
    }
  }
}

// What a screen reader is told a map draws (its description, app/ui/access): how many points and how many the
// legend hides, the axes, the colour (each category's count, or a number's range), the groups named on the map,
// where most points lie, the selection and the inspected point. `keep`: the points shown (null: all).
export function describeMap(f, keep) {
  const shown = keep ? keep.reduce((a, b) => a + b, 0) : f.n;
  const out = [`A map of ${counted(f.n, "point")}${shown < f.n ? `, ${counted(f.n - shown, "point")} hidden by the legend` : ""}.`];
  if (f.xTitle || f.yTitle) out.push(`Across: ${f.xTitle || "x"}; up: ${f.yTitle || "y"}.`);
  const c = f.color;
  if (c.kind === "category" && f.codes) {
    const counts = new Map();
    for (let i = 0; i < f.n; i++) counts.set(f.codes[i], (counts.get(f.codes[i]) || 0) + 1);
    const parts = [...counts].sort((a, b) => b[1] - a[1])
      .map(([code, k]) => `${c.names[code] ?? "no value"} (${k.toLocaleString("en-US")})`);
    out.push(`Colour${c.title ? ` by ${c.title}` : ""}: ${listed(parts, 10)}.`);
  } else if (c.kind === "continuous") {
    out.push(`Colour${c.title ? ` by ${c.title}` : ""}, from ${spoken(c.min)} to ${spoken(c.max)}.`);
  }
  const named = f.markers.filter((m) => m.text && m.text.length).flatMap((m) => m.text);
  if (named.length) out.push(`Named on the map: ${listed(named, 10)}.`);
  const crowd = densest(f.x, f.y, keep);
  if (crowd) out.push(`Most points lie in the ${crowd.region} (${Math.round(crowd.share * 100)}% of them).`);
  if (f.selected.size) {
    const sel = [...f.selected].slice(0, 6).map((i) => tipTitle(f, i));
    // worded apart from the page's own "Selected: 3 points" above its selection table, which tests look for
    out.push(`The selection holds ${counted(f.selected.size, "point")}${sel.length ? `: ${listed(sel, 5)}` : ""}.`);
  }
  const inspected = f.rings.find((r) => r.label && r.indices.length === 1);
  if (inspected) out.push(`Inspected: ${tipTitle(f, inspected.indices[0])}.`);
  return out.join(" ");
}

// What the keys announce for point i: its label, its tooltip fields, and where it is among the points.
export function pointSpoken(f, i) {
  const fields = f.hover.fields.map((h) => `${h.name} ${fieldValue(h, i)}`);
  const colour = f.color.kind === "category" && f.codes ? `${f.color.title || "colour"} ${f.color.names[f.codes[i]] ?? "no value"}`
    : f.color.kind === "continuous" && f.values ? `${f.color.title || "value"} ${spoken(f.values[i])}` : null;
  const parts = [...new Set([colour, ...fields].filter(Boolean))];
  return `${tipTitle(f, i)}${parts.length ? `; ${parts.join("; ")}` : ""}. Point ${(i + 1).toLocaleString("en-US")} of ` +
    `${f.n.toLocaleString("en-US")}${f.selected.has(i) ? ", selected" : ""}.`;
}

// ------------------------------------------------------------ the points through WebGL 2
// From this many points to draw, the map draws them with WebGL 2 (where the browser has it): the CPU's
// pixel loop (blendDiscs) costs far more than a frame once there are tens of thousands.
export const GL_ABOVE = 20000;

// How far each of MARKS reaches from its centre, in radii (insideMark's outermost pixel): the side of the square
// a point sprite needs. The triangle's apex is 1.34 r above its centroid; the plus's arms reach 1.2 r.
export const MARK_REACH = [1, 0.89, 1.34, 1.25, 1.2, 1.15];

// The middle of the points' bounds, in float64: the positions sent to the GPU are taken from it, so that points
// far from the origin keep the precision float32 has near zero.
export function glCentre(xs, ys) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i], y = ys[i];
    if (!(x === x && y === y)) continue;
    if (x < x0) x0 = x; if (x > x1) x1 = x;
    if (y < y0) y0 = y; if (y > y1) y1 = y;
  }
  return x0 === Infinity ? [0, 0] : [(x0 + x1) / 2, (y0 + y1) / 2];
}

// Each point as the WebGL renderer draws it: its position less the centre (cx, cy) as a float32 pair in `xy`,
// and its style as one 32-bit word in `style`: its palette index (the low 16 bits), its mark (an index into
// MARKS, bits 16 to 18) and whether it is drawn (bit 19: kept by the legend, both coordinates numbers).
// colour: each point's palette index; keep: the points shown (null: all); codes and markOf: each point's
// category and each category's mark (null: discs). Returns how many points are drawn.
export function glPack(xs, ys, cx, cy, colour, keep, codes, markOf, xy, style) {
  let shown = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i], y = ys[i];
    xy[2 * i] = x - cx; xy[2 * i + 1] = y - cy;
    const on = (!keep || keep[i]) && x === x && y === y;
    const mark = codes ? markOf[codes[i]] || 0 : 0;
    style[i] = (colour[i] & 0xffff) | (mark << 16) | (on ? 0x80000 : 0);
    if (on) shown++;
  }
  return shown;
}

// A palette of [r, g, b] as RGBA bytes, one texel a colour (the texture the vertex shader reads a point's from).
export function paletteBytes(rgb) {
  const out = new Uint8Array(4 * Math.max(1, rgb.length));
  rgb.forEach((c, k) => { out[4 * k] = c[0]; out[4 * k + 1] = c[1]; out[4 * k + 2] = c[2]; out[4 * k + 3] = 255; });
  return out;
}

// Where a layer drawn at view `from` goes at view `to` (same w x h canvas): [x, y, k], its top-left corner's
// new place and the factor it is scaled by. A gesture on a map whose points take long to draw moves the last
// picture of them so, and draws them anew once it pauses.
export function layerShift(from, to, w, h) {
  const k = to.s / from.s;
  return [w / 2 + (from.cx - to.cx) * to.s - (w / 2) * k, h / 2 - (from.cy - to.cy) * to.s - (h / 2) * k, k];
}

// ------------------------------------------------------------ labels, bounded work per frame
// The points that may be labelled, most important first: those with a label that the legend keeps, by
// `priority` from high to low (ties, and every point when there is none, by index). Built once a frame of
// data, so a pan or a zoom only walks its head (firstInView). NaN priorities go last.
export function labelOrder(labels, priority, keep) {
  const n = labels ? labels.length : 0, ok = [];
  for (let i = 0; i < n; i++) if ((!keep || keep[i]) && labels[i] != null && labels[i] !== "") ok.push(i);
  if (!priority) return Int32Array.from(ok);
  const m = ok.length, SPAN = 2097152;  // 2^21: index and a 32-bit key share a float64's 53 bits exactly
  if (n > SPAN) {
    const byRank = Int32Array.from(ok);
    const p = (i) => (priority[i] === priority[i] ? priority[i] : -Infinity);
    return byRank.sort((a, b) => p(b) - p(a) || a - b);
  }
  // the priority's float32 bits turned into an unsigned key that orders as the numbers do, high first
  const f = new Float32Array(1), u = new Uint32Array(f.buffer), keys = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const i = ok[k], v = priority[i];
    let key = 0xffffffff;  // NaN: last
    if (v === v) {
      f[0] = v;
      const b = u[0];
      key = 0xffffffff - ((b & 0x80000000 ? ~b : b | 0x80000000) >>> 0);
    }
    keys[k] = key * SPAN + i;
  }
  keys.sort();
  const out = new Int32Array(m);
  for (let k = 0; k < m; k++) out[k] = keys[k] % SPAN;
  return out;
}

// Each point's place in `order` (labelOrder), -1 for the points it leaves out.
export function orderRank(order, n) {
  const rank = new Int32Array(n).fill(-1);
  for (let k = 0; k < order.length; k++) rank[order[k]] = k;
  return rank;
}

// The first k points of `order` (most important first) that `inView(i)` accepts, in that order. The walk down the
// order stops after k, which is soon when the view shows most points; when `budget` entries go by without k (a
// deep zoom) and a grid (gridIndex, or a function that builds it) and the view's box in data units [x0, y0, x1, y1]
// are given, the cells under the view are asked instead, whichever is less work: their points put in order by
// `rank` (orderRank). Either way a frame costs about what it shows, not every point.
export function firstInView(order, rank, k, inView, grid = null, box = null, budget = 8 * k) {
  const out = [];
  let q = 0;
  const walk = (stop) => { for (; q < stop && out.length < k; q++) if (inView(order[q])) out.push(order[q]); };
  walk(grid && box ? Math.min(order.length, budget) : order.length);
  if (out.length >= k || q >= order.length) return out;
  const g = typeof grid === "function" ? grid() : grid;
  if (g && g.n) {
    const [c0, c1, r0, r1] = gridSpan(g, box[0], box[1], box[2], box[3]);
    const held = ((c1 - c0 + 1) * (r1 - r0 + 1) * g.n) / (g.nx * g.ny);  // about the points under the view
    if (held < order.length - q) {
      const got = [];
      for (let r = r0; r <= r1; r++) {
        for (let c = c0; c <= c1; c++) {
          const cell = r * g.nx + c;
          for (let j = g.start[cell]; j < g.start[cell + 1]; j++) {
            const i = g.order[j];
            if (rank[i] >= 0 && inView(i)) got.push(rank[i]);
          }
        }
      }
      const ranks = Int32Array.from(got).sort(), found = [];
      for (let j = 0; j < ranks.length && found.length < k; j++) found.push(order[ranks[j]]);
      return found;
    }
  }
  walk(order.length);
  return out;
}
