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
