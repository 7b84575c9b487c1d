// The 3-D view's pure logic: turning points by two angles onto the screen, the order to paint them in
// (farthest first), and the point nearest the pointer. No DOM here: tests/js/view3d.test.mjs runs it in
// node; app/ui/view3d/__init__.py inlines it above view3d.js.

// (x, y, z) turned by `yaw` about the vertical z axis, then tipped by `pitch` towards the viewer:
// [right, up, depth] (depth grows away from the viewer). An orthographic view: no perspective.
export function project(x, y, z, yaw, pitch) {
  const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
  const right = cy * x - sy * y, toward = sy * x + cy * y;
  return [right, cp * z - sp * toward, cp * toward + sp * z];
}

// Every point projected: {sx, sy, depth} arrays (screen pixels, y down), with `scale` pixels a unit about
// the centre (cx, cy).
export function projectAll(X, Y, Z, yaw, pitch, scale, cx, cy) {
  const n = X.length, sx = new Float32Array(n), sy = new Float32Array(n), depth = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const [r, u, d] = project(X[i], Y[i], Z[i], yaw, pitch);
    sx[i] = cx + r * scale; sy[i] = cy - u * scale; depth[i] = d;
  }
  return { sx, sy, depth };
}

// Indices in painting order: the farthest first, so nearer points cover them.
export function depthOrder(depth) {
  return Array.from(depth.keys()).sort((a, b) => depth[b] - depth[a] || a - b);
}

// The point whose projection is nearest (px, py) within `radius` pixels, the nearest to the viewer among
// equals; -1 when none.
export function nearestProjected(sx, sy, depth, px, py, radius) {
  let best = -1, bestD = radius * radius, bestDepth = Infinity;
  for (let i = 0; i < sx.length; i++) {
    const d = (sx[i] - px) ** 2 + (sy[i] - py) ** 2;
    if (d < bestD || (d === bestD && depth[i] < bestDepth)) { best = i; bestD = d; bestDepth = depth[i]; }
  }
  return best;
}

// ---------------------------------------------------------------- for keyboard and screen-reader users
// (counted, spoken and listed come from app/ui/access/logic.js, inlined ahead of this file.)

// A coordinate as the table writes it: four significant digits.
export function coordText(v) {
  return Number.isFinite(v) ? String(+v.toPrecision(4)) : "no value";
}

// The view's accessible name: the page's title for it, else what it holds.
export function viewName(title, n, marks) {
  if (title) return title;
  const named = marks.map((m) => m.name).filter(Boolean);
  return `3-D view of ${counted(n, "point")}${named.length ? `, marking ${listed(named, 4)}` : ""}`;
}

// The low and high ends of the values (NaN left out): [lo, hi], or null when there is none.
export function span(values) {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
  return lo === Infinity ? null : [lo, hi];
}

// What the view shows, said in a few sentences: how many points and how far they reach along each axis, the
// marks drawn over them (their names and the ids they mark), and the segments under them.
export function describeView(cloud, marks, segments = 0) {
  const n = cloud.x.length;
  const out = [`${counted(n, "point")} in three dimensions.`];
  const ranges = ["x", "y", "z"].flatMap((a) => {
    const r = span(cloud[a]);
    return r ? [`${a} from ${spoken(r[0])} to ${spoken(r[1])}`] : [];
  });
  if (ranges.length) out.push(`They reach ${listed(ranges)}.`);
  for (const m of marks) {
    const ids = m.ids.map((id) => `${id}`);
    const which = ids.length === 1 ? `point ${ids[0]}` : `${counted(ids.length, "point")}, ${listed(ids, 10)}`;
    out.push(`Marked as ${m.name || "a mark"}: ${which}.`);
  }
  if (segments) out.push(`${counted(segments, "segment")} join points under them.`);
  return out.join(" ");
}

// The angles (radians) as said: how far the view is turned (0 to 359 degrees), how far it is tipped, its zoom.
export function anglesSpoken(a) {
  const deg = (r) => Math.round((r * 180) / Math.PI);
  const turned = ((deg(a.yaw) % 360) + 360) % 360;
  return `Turned ${turned} degrees, tipped ${deg(a.pitch)} degrees, zoom ${+a.zoom.toPrecision(3)}.`;
}

// The view a key gives from angles `a` ({yaw, pitch, zoom}) and the first view's `home`: Left and Right turn it
// by `step` radians, Up and Down tip it (within 1.5 radians either way), + and - zoom by 1.25 (0.2 to 20), Home
// goes back to the first view. null for any other key.
export function turnBy(a, key, home, step = Math.PI / 12) {
  const tip = (p) => Math.max(-1.5, Math.min(1.5, p));
  switch (key) {
    case "ArrowLeft": return { ...a, yaw: a.yaw - step };
    case "ArrowRight": return { ...a, yaw: a.yaw + step };
    case "ArrowUp": return { ...a, pitch: tip(a.pitch - step) };
    case "ArrowDown": return { ...a, pitch: tip(a.pitch + step) };
    case "+": case "=": return { ...a, zoom: Math.min(20, a.zoom * 1.25) };
    case "-": case "_": return { ...a, zoom: Math.max(0.2, a.zoom / 1.25) };
    case "Home": return { yaw: home.yaw, pitch: home.pitch, zoom: 1 };
    default: return null;
  }
}

// The table view: a row per point (its id, x, y, z and the marks it carries), then the marked points that are
// not in the cloud. `cloud`: {x, y, z, ids}; `marks`: [{name, ids, xyz}].
export function viewTable(cloud, marks) {
  const carried = new Map(), n = cloud.x.length, inCloud = new Set(cloud.ids);
  const extra = [];
  for (const m of marks) {
    m.ids.forEach((id, k) => {
      carried.set(id, [...(carried.get(id) || []), m.name]);
      if (!inCloud.has(id)) extra.push([id, m.xyz[3 * k], m.xyz[3 * k + 1], m.xyz[3 * k + 2]]);
    });
  }
  const seen = new Set(), rest = extra.filter(([id]) => !seen.has(id) && seen.add(id));
  return {
    columns: ["point", "x", "y", "z", "marked as"],
    n: n + rest.length,
    row: (k) => {
      const [id, x, y, z] = k < n ? [cloud.ids[k], cloud.x[k], cloud.y[k], cloud.z[k]] : rest[k - n];
      return [String(id), coordText(x), coordText(y), coordText(z), (carried.get(id) || []).join(", ")];
    },
  };
}
