// The lab's map: points on a 2-D canvas, one scale for both axes, with layers (rings, edges,
// arrows, lines, markers), labels placed without overlap, hover, pan and zoom, box / lasso /
// click selection sent back to Python as point indices, and a glide from the frame on screen to
// a new one. The pure parts live in logic.js (inlined above this file by app/ui/map/__init__.py).

// The canvas's type: 12 px, or larger in presentation mode (the data's typeScale, for every map on the page).
let FONT = "12px 'Source Sans Pro', 'Source Sans 3', sans-serif";
let BOLD = "600 12px 'Source Sans Pro', 'Source Sans 3', sans-serif";
let TYPE_SCALE = 1;
function setTypeScale(s) {
  TYPE_SCALE = s > 0 ? s : 1;
  const px = Math.round(12 * TYPE_SCALE);
  FONT = `${px}px 'Source Sans Pro', 'Source Sans 3', sans-serif`;
  BOLD = `600 ${px}px 'Source Sans Pro', 'Source Sans 3', sans-serif`;
}
const LABEL_CANDIDATES = 4000; // labels tried per draw, most important first (the rest wait for a zoom)
const DOT_OBSTACLES = 3000; // points shown up to which labels keep off the other points' marks
const LABEL_GAP = 3; // pixels between a point's mark and its label
const LEADER_LABELS = 60; // labels up to which every one is placed, off its point with a leader line if need be
const GRID_ABOVE = 2000; // points from which hover and selection ask a grid index, not every point
const STAMP_ABOVE = 5000; // points above which a glide's frames are stamped (stampDiscs), not blended
// From GL_ABOVE points (logic.js) they are drawn with WebGL 2. A software GL takes tens of milliseconds a frame for
// a hundred thousand of them, so during a pan or a wheel zoom a picture of the points that took longer than
// GL_REUSE_MS to draw is moved as a picture, and the points are drawn anew SETTLE_MS after the gesture pauses.
const GL_REUSE_MS = 24;
const SETTLE_MS = 150;
const registry = (globalThis.__labMaps = globalThis.__labMaps || {});
// the long arrays every map on the page was sent, kept across runs and pages (logic.js's BlobStore)
const BLOBS = (globalThis.__labBlobs = globalThis.__labBlobs || new BlobStore());
const MAP_KEYS = "Keys: the arrows move from point to point, Home and End go to the leftmost and the rightmost, " +
  "Enter inspects the point, Space adds it to the selection or takes it out, Shift with an arrow extends the " +
  "selection, Escape clears it, plus and minus zoom, T shows the points as a table.";
const AHEAD = { ArrowRight: "to the right", ArrowLeft: "to the left", ArrowUp: "up", ArrowDown: "down" };

function el(tag, cls, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (parent) parent.appendChild(e);
  return e;
}

// The points drawn by the GPU: each point a sprite (gl.POINTS) whose fragment shader cuts its mark out of the
// square (the same shapes, radius and coverage as discMask), blended over the points before it at the map's
// opacity, into an offscreen canvas that draw() lays where the CPU's layer goes. Positions, styles, sizes and the
// palette are uploaded when they change (a frame of data, a glide's step, the legend); a pan or a zoom only
// changes the uniforms of the view.
const GL_VERTEX = `#version 300 es
precision highp float;
precision highp int;
layout(location = 0) in vec2 a_xy;
layout(location = 1) in uint a_style;
layout(location = 2) in float a_size;
uniform vec2 u_off;
uniform float u_s;
uniform vec2 u_half;
uniform float u_dpr;
uniform float u_margin;
uniform vec2 u_px;
uniform highp sampler2D u_palette;
flat out vec3 v_rgb;
flat out float v_r;
flat out float v_side;
flat out int v_mark;
const float REACH[6] = float[6](${MARK_REACH.map((r) => r.toFixed(3)).join(", ")});
void main() {
  v_rgb = vec3(0.0); v_r = 0.0; v_side = 1.0; v_mark = 0;
  if ((a_style & 0x80000u) == 0u) { gl_Position = vec4(2.0, 2.0, 2.0, 1.0); gl_PointSize = 1.0; return; }
  int mark = int((a_style >> 16) & 7u);
  // u_off is the view's centre less the data's centre: both taken in float64, so the difference is small
  vec2 p = vec2(u_half.x + (a_xy.x - u_off.x) * u_s, u_half.y - (a_xy.y - u_off.y) * u_s) * u_dpr;
  // on the middle of the pixel it falls in, as the CPU puts its marks (blendDiscs rounds each centre)
  p = floor(p + 0.5) + 0.5 + u_margin;
  float r = floor(a_size * u_dpr * 4.0 + 0.5) / 4.0;
  float side = 2.0 * ceil(REACH[mark] * r + 1.0);
  gl_PointSize = side;
  gl_Position = vec4(p.x / u_px.x * 2.0 - 1.0, 1.0 - p.y / u_px.y * 2.0, 0.0, 1.0);
  v_rgb = texelFetch(u_palette, ivec2(int(a_style & 0xffffu), 0), 0).rgb;
  v_r = r; v_side = side; v_mark = mark;
}`;
// Each fragment's share of its point's mark: edge() is how far (in pixels, negative inside) the offset q (y down)
// lies from the edge of insideMark's shape, and half a pixel either side of it the coverage goes from 1 to 0.
const GL_FRAGMENT = `#version 300 es
precision highp float;
flat in vec3 v_rgb;
flat in float v_r;
flat in float v_side;
flat in int v_mark;
uniform float u_alpha;
out vec4 colour;
float edge(int mark, vec2 q, float r) {
  vec2 a = abs(q);
  if (mark == 1) return max(a.x, a.y) - 0.89 * r;
  if (mark == 2) {
    float top = -1.34 * r;
    return max(max((a.x - (q.y - top) * 0.575) * 0.86692, q.y - 0.66 * r), top - q.y);
  }
  if (mark == 3) return (a.x + a.y - 1.25 * r) * 0.70711;
  if (mark == 4 || mark == 5) {
    if (mark == 5) a = abs(vec2(q.x + q.y, q.x - q.y)) * 0.70711;
    float t = 0.42 * r, l = 1.2 * r;
    return min(max(a.x - t, a.y - l), max(a.y - t, a.x - l));
  }
  return length(q) - r;
}
void main() {
  vec2 q = (gl_PointCoord - 0.5) * v_side;
  // no discard: a fragment outside the mark adds nothing to the premultiplied blend, and a software GL is faster
  // without it
  float a = u_alpha * clamp(0.5 - edge(v_mark, q, v_r), 0.0, 1.0);
  colour = vec4(v_rgb * a, a);
}`;

// Whether the browser's WebGL 2 is drawn by the CPU (asked once: a context of its own, let go at once).
let SOFTWARE_GL = null;
function softwareGL() {
  if (SOFTWARE_GL !== null) return SOFTWARE_GL;
  SOFTWARE_GL = false;
  try {
    const gl = document.createElement("canvas").getContext("webgl2");
    if (gl) {
      const ext = gl.getExtension("WEBGL_debug_renderer_info");
      const name = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER) || "");
      SOFTWARE_GL = /swiftshader|llvmpipe|softpipe|software|basic render/i.test(name);
      const lose = gl.getExtension("WEBGL_lose_context");
      if (lose) lose.loseContext();
    }
  } catch (err) { SOFTWARE_GL = false; }
  return SOFTWARE_GL;
}

class PointsGL {
  // null when the browser gives no WebGL 2 context (the map then draws its points on the CPU).
  static make(onLost, onRestored) {
    const canvas = document.createElement("canvas");
    let gl = null;
    try {
      gl = canvas.getContext("webgl2", { alpha: true, premultipliedAlpha: true, antialias: false, depth: false,
                                         stencil: false, preserveDrawingBuffer: true });
    } catch (err) { gl = null; }
    if (!gl) return null;
    const out = new PointsGL(canvas, gl);
    if (!out.setup()) return null;
    canvas.addEventListener("webglcontextlost", (ev) => {
      ev.preventDefault();  // so that the browser may give the context back (webglcontextrestored)
      out.lost = true; out.picture = null; onLost();
    });
    canvas.addEventListener("webglcontextrestored", () => { out.lost = !out.setup(); onRestored(); });
    return out;
  }

  constructor(canvas, gl) {
    this.canvas = canvas; this.gl = gl; this.lost = false; this.picture = null;
  }

  // The program, buffers and palette texture (again after a lost context comes back); false if they fail.
  setup() {
    const gl = this.gl, shader = (kind, src) => {
      const sh = gl.createShader(kind);
      gl.shaderSource(sh, src); gl.compileShader(sh);
      return gl.getShaderParameter(sh, gl.COMPILE_STATUS) ? sh : null;
    };
    const vs = shader(gl.VERTEX_SHADER, GL_VERTEX), fs = shader(gl.FRAGMENT_SHADER, GL_FRAGMENT);
    if (!vs || !fs) return false;
    const prog = gl.createProgram();
    gl.attachShader(prog, vs); gl.attachShader(prog, fs); gl.linkProgram(prog);
    gl.deleteShader(vs); gl.deleteShader(fs);
    if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) return false;
    this.prog = prog;
    this.u = {};
    for (const name of ["u_off", "u_s", "u_half", "u_dpr", "u_margin", "u_px", "u_palette", "u_alpha"])
      this.u[name] = gl.getUniformLocation(prog, name);
    this.vao = gl.createVertexArray();
    gl.bindVertexArray(this.vao);
    this.xyBuf = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.xyBuf);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
    this.styleBuf = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.styleBuf);
    gl.enableVertexAttribArray(1);
    gl.vertexAttribIPointer(1, 1, gl.UNSIGNED_INT, 0, 0);
    this.sizeBuf = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.sizeBuf);
    gl.vertexAttribPointer(2, 1, gl.FLOAT, false, 0, 0);
    gl.bindVertexArray(null);
    this.palette = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.palette);
    for (const [k, v] of [[gl.TEXTURE_MIN_FILTER, gl.NEAREST], [gl.TEXTURE_MAG_FILTER, gl.NEAREST],
                          [gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE], [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE]])
      gl.texParameteri(gl.TEXTURE_2D, k, v);
    this.maxSide = gl.getParameter(gl.ALIASED_POINT_SIZE_RANGE)[1];
    this.maxTexture = gl.getParameter(gl.MAX_TEXTURE_SIZE);
    this.has = {};  // what the buffers hold, by the arrays they were made from
    this.version = 0;  // counts uploads: a picture of an older version is not moved about
    this.picture = null;
    return true;
  }

  // Upload what the map's points changed since the last frame. False when the GPU cannot draw them as the CPU
  // would (a palette wider than a texture, a mark bigger than a point sprite): the map draws them itself then.
  sync(map) {
    const gl = this.gl, f = map.frame, X = map.shown.x, Y = map.shown.y, has = this.has, n = X.length;
    if (map.paletteRGB.length > Math.min(65536, this.maxTexture)) return false;
    if (has.frame !== f) {
      has.frame = f;
      has.centre = glCentre(f.x, f.y);
      const marks = f.color.kind === "category" && f.color.marks ? f.codes : null;
      has.codes = marks;
      has.markOf = marks ? Int8Array.from(f.color.names.map((_, k) => Math.max(0, categoryMark(f.color, k)))) : null;
      let big = 0;
      if (f.sizes) for (let i = 0; i < f.sizes.length; i++) { if (f.sizes[i] > big) big = f.sizes[i]; }
      has.biggest = f.sizes ? big : f.size;
    }
    if (has.x !== X || has.y !== Y || has.keep !== map.keep || has.colour !== map.colourIdx || has.packedFor !== f) {
      if (!this.xy || this.xy.length !== 2 * n) { this.xy = new Float32Array(2 * n); this.style = new Uint32Array(n); }
      this.shown = glPack(X, Y, has.centre[0], has.centre[1], map.colourIdx, map.keep, has.codes, has.markOf,
                          this.xy, this.style);
      gl.bindBuffer(gl.ARRAY_BUFFER, this.xyBuf);
      gl.bufferData(gl.ARRAY_BUFFER, this.xy, gl.DYNAMIC_DRAW);
      gl.bindBuffer(gl.ARRAY_BUFFER, this.styleBuf);
      gl.bufferData(gl.ARRAY_BUFFER, this.style, gl.DYNAMIC_DRAW);
      Object.assign(has, { x: X, y: Y, keep: map.keep, colour: map.colourIdx, packedFor: f });
      this.n = n; this.version++;
    }
    if (has.sizes !== f.sizes || has.sizesFor !== f) {
      gl.bindVertexArray(this.vao);
      if (f.sizes) {
        gl.bindBuffer(gl.ARRAY_BUFFER, this.sizeBuf);
        gl.bufferData(gl.ARRAY_BUFFER, f.sizes, gl.STATIC_DRAW);
        gl.enableVertexAttribArray(2);
      } else gl.disableVertexAttribArray(2);
      gl.bindVertexArray(null);
      has.sizes = f.sizes; has.sizesFor = f; this.version++;
    }
    if (!f.sizes) gl.vertexAttrib1f(2, f.size);
    if (has.palette !== map.paletteRGB) {
      gl.bindTexture(gl.TEXTURE_2D, this.palette);
      gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, Math.max(1, map.paletteRGB.length), 1, 0, gl.RGBA, gl.UNSIGNED_BYTE,
                    paletteBytes(map.paletteRGB));
      has.palette = map.paletteRGB; this.version++;
    }
    const r = Math.round(has.biggest * map.dpr * 4) / 4, side = 2 * Math.ceil(MARK_REACH[2] * r + 1);
    if (!(side <= this.maxSide)) return false;
    this.margin = Math.min(256, side / 2 + 2);  // whole pixels: a point near the edge is drawn whole, not dropped
    return true;
  }

  // The points at the map's view into this.canvas: the map's W x H device pixels, `margin` more on each side.
  render(map, opacity) {
    const gl = this.gl, M = this.margin, W = map.canvas.width, H = map.canvas.height, v = map.view;
    const GW = W + 2 * M, GH = H + 2 * M;
    if (this.canvas.width !== GW || this.canvas.height !== GH) { this.canvas.width = GW; this.canvas.height = GH; }
    gl.viewport(0, 0, GW, GH);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.useProgram(this.prog);
    gl.bindVertexArray(this.vao);
    const c = this.has.centre, u = this.u;
    gl.uniform2f(u.u_off, v.cx - c[0], v.cy - c[1]);
    gl.uniform1f(u.u_s, v.s);
    gl.uniform2f(u.u_half, map.w / 2, map.h / 2);
    gl.uniform1f(u.u_dpr, map.dpr);
    gl.uniform1f(u.u_margin, M);
    gl.uniform2f(u.u_px, GW, GH);
    gl.uniform1f(u.u_alpha, opacity);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.palette);
    gl.uniform1i(u.u_palette, 0);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    if (this.shown) gl.drawArrays(gl.POINTS, 0, this.n);
    gl.bindVertexArray(null);
  }

  dispose() {
    const gl = this.gl;
    this.disposed = true;
    if (!this.lost) {
      for (const b of [this.xyBuf, this.styleBuf, this.sizeBuf]) gl.deleteBuffer(b);
      gl.deleteTexture(this.palette); gl.deleteVertexArray(this.vao); gl.deleteProgram(this.prog);
    }
    this.xy = this.style = null; this.has = {}; this.picture = null;
    // the context itself goes now, not when the page is collected: a page holds only a few at once
    const ext = gl.getExtension("WEBGL_lose_context");
    if (ext && !this.lost) ext.loseContext();
    this.canvas.width = this.canvas.height = 1;
  }
}

class LabMap {
  constructor(root) {
    this.root = root;
    this.box = el("div", "lab-map", null);
    root.appendChild(this.box);
    this.head = el("div", "lab-head", this.box);
    this.title = el("div", "lab-title", this.head);
    this.tools = el("div", "lab-tools", this.head);
    this.btnReset = el("button", "lab-btn", this.tools);
    this.btnReset.textContent = "Reset view";
    this.btnReset.title = "Fit every point (or double-click the map)";
    this.btnPng = el("button", "lab-btn", this.tools);
    this.btnPng.textContent = "PNG";
    this.btnPng.title = "Download the view as a PNG image";
    this.stage = el("div", "lab-stage", this.box);
    this.canvas = el("canvas", "lab-canvas", this.stage);
    this.overlay = el("canvas", "lab-overlay", this.stage);
    this.tip = el("div", "lab-tip", this.stage);
    this.scrub = el("div", "lab-scrub", this.box);  // a sweep's scrubber (empty: hidden)
    this.bar = el("div", "lab-colorbar", this.box);
    this.legend = el("div", "lab-legend", this.box);
    this.hidden = new Set();
    this.view = null;
    this.auto = true; // the view follows the data until the user pans or zooms
    this.frame = null;
    this.shown = null; // {x, y} positions as drawn right now (mid-glide included)
    this.anim = null;
    this.labelBoxes = [];
    this.frames = 0;
    this.hover = -1;
    this.drag = null;
    this.w = 600; this.h = 400;
    this.access = new LabAccess(this.box, this.stage, { kind: "map", keys: MAP_KEYS, tools: this.tools });
    this.access.tableFrom(() => this.tableRows());
    this.kfocus = -1;  // the point the keys reached (-1: none yet)
    this.keySel = null;  // the selection the keys are building (null: the page's)
    this.bind();
  }

  // ------------------------------------------------------------ data in
  update(data, api) {
    this.api = api;
    const sigSame = this.frame && this.frame.sig === data.sig;
    if (sigSame) return;
    const missing = BLOBS.take(data);
    if (missing.length) {  // told it holds an array it let go (or whose run it skipped): asks for them whole, once
      if (this.askedFor !== data.sig) { this.askedFor = data.sig; api.setTriggerValue("missing", missing); }
      return;
    }
    data = BLOBS.resolve(data);
    setTypeScale(data.typeScale || 1);
    this.box.classList.toggle("lab-present", TYPE_SCALE > 1);
    const f = {
      sig: data.sig, n: data.n, items: data.items ?? null, mapId: data.mapId,
      x: decode(data.x), y: decode(data.y), ids: data.ids || null, labels: spreadTexts(data.labels, data.n),
      priority: decode(data.labelPriority), always: new Set(data.alwaysLabel || []),
      // points heavier with the type in presentation mode (sizes per point stay as given)
      color: data.color || { kind: "single", color: "#3b5bdb" },
      size: typeof data.size === "number" ? data.size * Math.sqrt(TYPE_SCALE) : data.size ?? 5,
      opacity: data.opacity ?? 0.85, rings: data.rings || [], rowIds: !!data.rowIds,
      hover: { fields: ((data.hover && data.hover.fields) || []).map(
        (h) => (h.numbers != null ? { ...h, nums: decode(h.numbers) }
          : h.codes != null ? { ...h, cds: decode(h.codes, Int32Array) }
          : h.index != null ? { ...h, values: spreadTexts(h, data.n) } : h)) },
      edges: (data.edges || []).map((e) => ({ ...e, pairs: decode(e.pairs, Int32Array) })),
      arrows: data.arrows || [], lines: data.lines || [],
      markers: (data.markers || []).map((m) => (m.selectCodes ? { ...m, codes: decode(m.selectCodes, Int32Array) } : m)),
      contours: (data.contours || []).map((c) => ({ ...c, xy: decode(c.xy), starts: decode(c.starts, Int32Array) })),
      mode: data.mode || "pan", height: fitToWindow(data.height || 480, !!data.fit, 115 * TYPE_SCALE), asked: data.height || 480,
      fit: !!data.fit, title: data.title || "",
      glideMs: data.glideMs ?? 400, selected: new Set(data.selected || []), xTitle: data.xTitle || "",
      yTitle: data.yTitle || "", focus: data.focus || null, shrink: !!data.shrink,
    };
    if (data.sweep) {
      const w = data.sweep;
      f.sweep = { name: w.name, values: w.values, at: w.at, xs: w.x.map((b) => decode(b)), ys: w.y.map((b) => decode(b)) };
    }
    if (f.color.kind === "category") f.codes = decode(f.color.codes, Int32Array);
    if (f.color.kind === "continuous") f.values = decode(f.color.values);
    for (const h of f.hover.fields) {  // the colour's numbers and the labels, sent once
      if (h.sameAs === "color") h.nums = f.values;
      if (h.sameAs === "labels") h.values = f.labels;
    }
    if (f.size != null && typeof f.size !== "number") f.sizes = decode(f.size);
    // text sent for some points only: the labels' or else a text field's, one entry a point (askTexts)
    const partial = f.hover.fields.find((h) => h.index != null);
    f.someTexts = data.labels && !Array.isArray(data.labels) ? f.labels : partial ? partial.values : null;
    if (reducedMotion()) f.glideMs = 0;  // the reader asked for less motion: maps jump to their new places
    const old = this.frame;
    if (!old || old.n !== f.n || old.items !== f.items) this.kfocus = -1;
    if (this.keySel && !sameMembers(this.keySel, f.selected)) this.keySel = null;
    if (old && old.color.kind === "category" && f.color.kind === "category" &&
        JSON.stringify(old.color.names) === JSON.stringify(f.color.names)) {
      // the hidden legend entries stay hidden while the categories are the same
    } else this.hidden = new Set();
    const match = old && f.glideMs > 0 ? matchFrames(old, f) : null;
    const from = this.shown;
    this.frame = f;
    this.frames += 1;
    this.keep = this.visibility();
    this.paint();
    this.title.textContent = f.title;
    this.access.describe(f.title || "Map", describeMap(f, this.keep));
    this.access.tableFrom(() => this.tableRows());
    this.stage.style.height = `${f.height}px`;
    this.stage.dataset.mode = f.mode;
    this.resize();
    this.drawLegend();
    this.drawScrubber(old);
    this.refit();
    const focus = f.focus && f.focus.length ? f.focus : null;
    const target = focus ? this.fit(focusBounds(f.x, f.y, focus), 48) : this.fit(bounds(f.x, f.y, this.keep));
    // a new set of points to frame (a search typed) frames them, wherever the view was panned
    const refocus = String(focus || "") !== String((old && old.focus) || "");
    if (refocus) this.auto = true;
    // only the view moves (a search framed, a filter): it jumps, the points stay where they are
    if (match && from && match.some((j) => j >= 0) && !this.pointsStill(from, f, match)) {
      const view0 = this.view;
      const start = performance.now();
      cancelAnimationFrame(this.anim);
      const step = (now) => {
        const t = Math.min(1, (now - start) / f.glideMs);
        const [x, y] = tween(from.x, from.y, f.x, f.y, match, t);
        this.shown = { x, y };
        if (this.auto && view0) {
          const e = 1 - Math.pow(1 - t, 3);
          this.view = { cx: view0.cx + (target.cx - view0.cx) * e, cy: view0.cy + (target.cy - view0.cy) * e,
                        s: view0.s * Math.pow(target.s / view0.s, e) };
        }
        if (t < 1) { this.draw(); this.anim = requestAnimationFrame(step); }
        else { this.anim = null; this.shown = { x: f.x, y: f.y }; this.draw(); }
      };
      if (!this.view) this.view = target;
      this.anim = requestAnimationFrame(step);
      this.draw();
    } else {
      cancelAnimationFrame(this.anim);
      this.anim = null;
      this.shown = { x: f.x, y: f.y };
      if (this.auto || !this.view) this.view = target;
      this.draw();
    }
    registry[f.mapId] = this;
  }

  // The view that frames `box` on the canvas, `pad` pixels free at each side and a row more where the axis
  // titles and the scale bar are written (the bottom, and the left when there is a title up), so that no point
  // lies on them.
  fit(box, pad = 24) {
    const m = this.margins();
    return fitView(box, this.w, this.h, { l: pad + m.l, t: pad + m.t, r: pad + m.r, b: pad + m.b });
  }

  // The room the axis titles and the scale bar take at each side, in pixels.
  margins() {
    const room = fontPx(FONT) + 6;
    return { l: this.frame && this.frame.yTitle ? room : 0, t: 0, r: 0, b: room };
  }

  // True when no point of the new frame moves by half a pixel or more from where it is on screen (a search, a
  // filter, a colour, a live run's last frame redrawn as the finished map): nothing to glide, the view jumps.
  pointsStill(from, f, match) {
    return !this.view || largestMove(from.x, from.y, f.x, f.y, match) * this.view.s < 0.5;
  }

  visibility() {
    const f = this.frame;
    if (f.color.kind !== "category" || !this.hidden.size) return null;
    const keep = new Uint8Array(f.n);
    for (let i = 0; i < f.n; i++) keep[i] = this.hidden.has(f.codes[i]) ? 0 : 1;
    return keep;
  }

  // In presentation mode a main map takes the window's height left under the tour's bar, less what sits above it
  // in its row (selection tools) and its own title, legend and scrubber, measured as drawn.
  refit() {
    const f = this.frame;
    if (!f || !f.fit) return;
    const host = this.root.host || this.root;
    const row = host.closest ? host.closest('[data-testid="stHorizontalBlock"]') : null;
    // the figures beside it in its row are scrolled into view with it (app/ui/reveal): the room it has starts at
    // the highest of their tops
    const top = host.getBoundingClientRect().top;
    const above = row ? Math.max(0, top - Math.min(top, ...figureTops(row))) : 0;
    const furniture = this.box.getBoundingClientRect().height - this.stage.getBoundingClientRect().height;
    const h = fitToWindow(f.asked, true, above + furniture + 8);
    if (Math.abs(h - f.height) < 3) return;
    f.height = h;
    this.stage.style.height = `${h}px`;
    this.resize();
  }

  resize() {
    const host = this.root.host || this.root;
    const w = Math.max(200, Math.floor((host.getBoundingClientRect().width || this.box.clientWidth || 600)));
    let h = this.frame ? this.frame.height : 400;
    if (this.frame && this.frame.shrink) {  // a wide layout gets a box of its own shape, not the middle of a tall one
      const [x0, y0, x1, y1] = bounds(this.frame.x, this.frame.y, null);
      h = Math.round(Math.min(h, Math.max(240, (w - 48) * ((y1 - y0) / Math.max(x1 - x0, 1e-12)) + 96)));
      this.stage.style.height = `${h}px`;
    }
    const dpr = globalThis.devicePixelRatio || 1;
    if (w === this.w && h === this.h && this.dpr === dpr && this.canvas.width) return;
    const grow = this.view && this.w ? true : false;
    this.w = w; this.h = h; this.dpr = dpr;
    for (const c of [this.canvas, this.overlay]) {
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
      c.style.width = `${w}px`; c.style.height = `${h}px`;
    }
    if (grow && this.auto && this.frame) {
      const f = this.frame;
      this.view = f.focus && f.focus.length ? this.fit(focusBounds(f.x, f.y, f.focus), 48)
        : this.fit(bounds(f.x, f.y, this.keep));
    }
  }

  // ------------------------------------------------------------ drawing
  // Each point's colour as an index into a small palette (categories: theirs; a continuous value:
  // 128 steps of its scale), so points are drawn one path per colour, without a string per point.
  paint() {
    const f = this.frame, c = f.color, n = f.n, idx = new Int32Array(n);
    let palette;
    if (c.kind === "category") {
      palette = c.colors;
      for (let i = 0; i < n; i++) idx[i] = ((f.codes[i] % palette.length) + palette.length) % palette.length;
    } else if (c.kind === "continuous") {
      const stops = SCALES[c.scale] || SCALES.viridis, steps = 128, span = c.max - c.min || 1;
      palette = Array.from({ length: steps }, (_, k) => ramp(stops, k / (steps - 1)));
      palette.push(ramp(stops, NaN));
      for (let i = 0; i < n; i++) {
        const v = f.values[i];
        idx[i] = v === v ? Math.min(steps - 1, Math.max(0, Math.round(((v - c.min) / span) * (steps - 1)))) : steps;
      }
    } else palette = [c.color];
    this.palette = palette;
    this.paletteRGB = palette.map(parseColour);
    this.colourIdx = idx;
  }

  // The points, laid over the edges and lines drawn so far: from GL_ABOVE points drawn by WebGL 2 where the
  // browser has it, fewer (or without it) written as pixels on the CPU.
  // A WebGL 2 that the CPU emulates (SwiftShader, llvmpipe: a machine without a GPU, a headless browser) draws a
  // million sprites several times slower than the pixel loop, so the points stay on the CPU there
  // (__labMapForceGL: the GPU path all the same, for its tests).
  drawPoints(ctx, X, Y, keep, sx, sy) {
    if (this.shownCount() >= GL_ABOVE && !globalThis.__labMapForceCanvas &&
        (globalThis.__labMapForceGL || !softwareGL()) && this.drawPointsGL(ctx)) {
      this.renderer = "webgl2";
      return;
    }
    this.renderer = "canvas";
    this.drawPointsCanvas(ctx, X, Y, keep, sx, sy);
  }

  // How many points the legend keeps (all but its hidden entries'), counted once for each `keep`.
  shownCount() {
    const keep = this.keep;
    if (!keep) return this.frame.n;
    if (this.countFor !== keep) {
      let k = 0;
      for (let i = 0; i < keep.length; i++) k += keep[i];
      this.countFor = keep; this.counted = k;
    }
    return this.counted;
  }

  // The points through the GPU (PointsGL), laid where the CPU's layer goes. During a gesture a picture of them
  // that took long to draw is moved to the view instead (layerShift), and drawn anew once the gesture pauses.
  // False when there is no WebGL 2 here, its context is lost, or it cannot draw these points.
  drawPointsGL(ctx) {
    if (this.glFailed) return false;
    if (!this.glPoints) {
      this.glPoints = PointsGL.make(() => { if (!this.disposed) this.draw(); },
                                 () => { if (!this.disposed) this.draw(); });
      if (!this.glPoints) { this.glFailed = true; return false; }
    }
    const gl = this.glPoints, f = this.frame, v = this.view, { w, h, dpr } = this;
    if (gl.lost || gl.gl.isContextLost()) return false;
    const t0 = performance.now();
    if (!gl.sync(this)) return false;
    const W = this.canvas.width, H = this.canvas.height, pic = gl.picture;
    if (this.gesture && !globalThis.__labMapRedrawEveryFrame && pic && pic.version === gl.version &&
        pic.W === W && pic.H === H && pic.dpr === dpr && pic.opacity === f.opacity && pic.cost > GL_REUSE_MS) {
      const [x, y, k] = layerShift(pic.view, v, w, h), m = pic.margin / dpr;
      ctx.drawImage(gl.canvas, x - m * k, y - m * k, (w + 2 * m) * k, (h + 2 * m) * k);
      this.reused = true;
      return true;
    }
    gl.render(this, f.opacity);
    const m = gl.margin;
    ctx.drawImage(gl.canvas, m, m, W, H, 0, 0, w, h);
    gl.picture = { version: gl.version, view: { ...v }, W, H, dpr, opacity: f.opacity, margin: m,
                   cost: performance.now() - t0 };
    this.reused = false;
    return true;
  }

  // A pan or a wheel zoom under way: the frames it draws may move the last picture of the points (drawPointsGL);
  // the points are drawn anew SETTLE_MS after its last step.
  gestureStep() {
    this.gesture = true;
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => this.settle(), SETTLE_MS);
  }

  settle() {
    clearTimeout(this.settleTimer);
    if (!this.gesture) return;
    this.gesture = false;
    if (this.reused && this.frame && !this.disposed) this.draw();
    this.askTexts();
  }

  // A map sent text for some of its points only (past 20,000): once the view rests on points without it, the
  // page is asked for the text of the points in view (their labels and tooltips), most important first.
  askTexts() {
    const f = this.frame;
    if (!f || !f.someTexts || !this.api || this.disposed) return;
    const { w, h } = this, v = this.view, [ax, ay] = toData(v, w, h, 0, h), [bx, by] = toData(v, w, h, w, 0);
    const box = [ax, ay, bx, by];
    if (!lacksTexts(this.shown.x, this.shown.y, this.keep, f.someTexts, box)) return;
    const said = `${f.items}|${box.map((t) => t.toPrecision(6)).join(",")}`;
    if (said === this.askedView) return;
    this.askedView = said;
    this.api.setTriggerValue("view", { box, items: f.items });
  }

  // The GPU's buffers and context, freed when the map leaves the page.
  dispose() {
    this.disposed = true;
    clearTimeout(this.settleTimer);
    if (this.glPoints) { this.glPoints.dispose(); this.glPoints = null; }
  }

  // The points written as pixels into a layer of their own (an arc per point costs several times more once
  // there are thousands).
  // During a gesture a picture that took over GL_REUSE_MS is moved instead, as drawPointsGL does (without its
  // margin: the edges the pan uncovers fill in when the gesture pauses).
  drawPointsCanvas(ctx, X, Y, keep, sx, sy) {
    const f = this.frame, dpr = this.dpr, W = this.canvas.width, H = this.canvas.height, t0 = performance.now();
    const pic = this.cpuPicture, v = this.view;
    if (this.gesture && !globalThis.__labMapRedrawEveryFrame && pic && this.anim == null && pic.W === W &&
        pic.H === H && pic.dpr === dpr && pic.x === X && pic.y === Y && pic.keep === keep &&
        pic.colour === this.colourIdx && pic.frame === f && pic.cost > GL_REUSE_MS) {
      const [x, y, k] = layerShift(pic.view, v, this.w, this.h);
      ctx.drawImage(this.layer, x, y, this.w * k, this.h * k);
      this.reused = true;
      return;
    }
    this.reused = false;
    if (!this.layer || this.layer.width !== W || this.layer.height !== H) {
      this.layer = document.createElement("canvas");
      this.layer.width = W; this.layer.height = H;
      this.pixels = this.layer.getContext("2d").createImageData(W, H);
      this.words = new Uint32Array(this.pixels.data.buffer);
    }
    const data = this.pixels.data;
    data.fill(0);
    const n = f.n, px = new Float32Array(n), py = new Float32Array(n), order = [];
    for (let i = 0; i < n; i++) {
      if (keep && !keep[i]) continue;
      const x = X[i], y = Y[i];
      if (!(x === x && y === y)) continue;
      px[i] = sx(x) * dpr; py[i] = sy(y) * dpr;
      order.push(i);
    }
    const masks = (this.masks ||= new Map()), ci = this.colourIdx, rgb = this.paletteRGB;
    const maskOf = (r, shape = "circle") => {
      const px = Math.round(r * dpr * 4) / 4, key = `${shape}|${px}`;
      let m = masks.get(key);
      if (!m) { m = discMask(px, shape); masks.set(key, m); }
      return m;
    };
    // categories: each its own mark as well as its colour (MARKS, in the legend's order)
    const marks = f.color.kind === "category" && f.color.marks ? f.codes : null;
    const markIx = marks ? f.color.names.map((_, k) => Math.max(0, categoryMark(f.color, k))) : null;
    const markOf = (i) => markIx[marks[i]] ?? 0;
    const byMark = marks && !f.sizes ? MARKS.map((shape) => maskOf(f.size, shape)) : null;  // one size: 6 masks
    const one = f.sizes || marks ? null : maskOf(f.size);
    const mask = one ? () => one : byMark ? (i) => byMark[markOf(i)]
      : marks ? (i) => maskOf(f.sizes[i], MARKS[markOf(i)]) : (i) => maskOf(f.sizes[i]);
    if (this.anim != null && order.length > STAMP_ABOVE) {  // a glide's frame: stamped, blended once it stops
      const words = rgb.map((c) => packRGBA(c, f.opacity));
      stampDiscs(this.words, W, H, px, py, order, (i) => words[ci[i]], mask);
    } else {
      blendDiscs(data, W, H, px, py, order, (i) => rgb[ci[i]], f.opacity, mask);
    }
    this.layer.getContext("2d").putImageData(this.pixels, 0, 0);
    ctx.drawImage(this.layer, 0, 0, this.w, this.h);
    this.cpuPicture = { W, H, dpr, x: X, y: Y, keep, colour: this.colourIdx, frame: f, view: { ...v },
                        cost: performance.now() - t0 };
  }

  colourOf(i) {
    return this.palette[this.colourIdx[i]];
  }

  draw() {
    const f = this.frame;
    if (!f) return;
    this.drawnOnce = true;
    const ctx = this.canvas.getContext("2d"), { w, h } = this, v = this.view, dpr = this.dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, w, h);
    const X = this.shown.x, Y = this.shown.y, keep = this.keep;
    const sx = (x) => w / 2 + (x - v.cx) * v.s, sy = (y) => h / 2 - (y - v.cy) * v.s;
    this.drawAxes(ctx);
    // edges under everything
    for (const e of f.edges) {
      ctx.strokeStyle = e.color || "rgba(120,120,120,0.35)";
      ctx.lineWidth = e.width || 1;
      ctx.setLineDash(e.dash ? [5, 4] : []);
      ctx.beginPath();
      const p = e.pairs;
      for (let k = 0; k + 1 < p.length; k += 2) {
        const a = p[k], b = p[k + 1];
        if (keep && (!keep[a] || !keep[b])) continue;
        ctx.moveTo(sx(X[a]), sy(Y[a])); ctx.lineTo(sx(X[b]), sy(Y[b]));
      }
      ctx.stroke();
    }
    ctx.setLineDash([]);
    for (const l of f.lines) this.drawLine(ctx, l);
    this.drawPoints(ctx, X, Y, keep, sx, sy);
    for (const c of f.contours) this.drawContours(ctx, c, sx, sy);
    ctx.globalAlpha = 1;
    for (const a of f.arrows) this.drawArrow(ctx, a, sx, sy, X, Y);
    // rings: the selection, neighbours, the highlighted item
    for (const r of f.rings) {
      ctx.strokeStyle = r.color || "#212529";
      ctx.fillStyle = r.color || "#212529";
      ctx.lineWidth = r.width || 1.5;
      const rad = r.size || 8;
      for (const i of r.indices) {
        if (i < 0 || i >= f.n || (keep && !keep[i])) continue;
        this.shape(ctx, r.shape || "circle", sx(X[i]), sy(Y[i]), rad, r.fill !== false);
      }
    }
    if (this.kfocus >= 0 && this.hasFocus) {  // the point the keys reached: a thick ring with a white halo
      const x = sx(X[this.kfocus]), y = sy(Y[this.kfocus]);
      ctx.lineWidth = 5; ctx.strokeStyle = "#ffffff"; ctx.beginPath(); ctx.arc(x, y, 10, 0, 2 * Math.PI); ctx.stroke();
      ctx.lineWidth = 2.5; ctx.strokeStyle = "#1c3faa"; ctx.beginPath(); ctx.arc(x, y, 10, 0, 2 * Math.PI); ctx.stroke();
    }
    this.markerHits = [];  // over the rings: a cluster's name stays readable over its selected points
    this.markerBoxes = [];
    for (const m of f.markers) this.drawMarkers(ctx, m, sx, sy);
    this.drawLabels(ctx, sx, sy, X, Y);
    this.drawOverlay();
  }

  drawAxes(ctx) {
    const f = this.frame, { w, h } = this;
    ctx.strokeStyle = "#e9ecef";
    ctx.lineWidth = 1;
    ctx.strokeRect(0.5, 0.5, w - 1, h - 1);
    ctx.fillStyle = "#495057";
    ctx.font = FONT;
    if (f.xTitle) { ctx.textAlign = "right"; ctx.fillText(f.xTitle, w - 6, h - 6); }
    if (f.yTitle) { ctx.save(); ctx.translate(14 * TYPE_SCALE, 6); ctx.rotate(Math.PI / 2); ctx.textAlign = "left"; ctx.fillText(f.yTitle, 0, 0); ctx.restore(); }
    ctx.textAlign = "left";
    // a scale bar: one round length in data units, the same across and up (equal axes)
    const v = this.view, target = 80 / v.s, p = Math.pow(10, Math.floor(Math.log10(target)));
    const unit = [1, 2, 5, 10].map((k) => k * p).filter((u) => u <= target).pop() || p;
    const len = unit * v.s;
    ctx.strokeStyle = "#6c757d";
    ctx.beginPath(); ctx.moveTo(10, h - 12); ctx.lineTo(10 + len, h - 12); ctx.moveTo(10, h - 16); ctx.lineTo(10, h - 8);
    ctx.moveTo(10 + len, h - 16); ctx.lineTo(10 + len, h - 8); ctx.stroke();
    this.scaleText = `${+unit.toPrecision(3)}`;
    ctx.fillText(this.scaleText, 14 + len, h - 8);
    // where the axis titles and the scale bar are written: the points' labels keep off them (drawLabels)
    const px = fontPx(ctx.font), boxes = [];
    if (f.xTitle) {
      const tw = ctx.measureText(f.xTitle).width;
      boxes.push({ text: f.xTitle, box: [w - 8 - tw, h - 7 - px, w - 4, h - 3] });
    }
    if (f.yTitle) {  // written downwards, its baseline 14 px (at 12 px type) from the left edge
      const tw = ctx.measureText(f.yTitle).width, tx = (14 * px) / 12;
      boxes.push({ text: f.yTitle, box: [tx - 0.35 * px, 4, tx + px, 8 + tw] });
    }
    boxes.push({ text: this.scaleText, box: [6, Math.min(h - 18, h - 9 - px), 16 + len + ctx.measureText(this.scaleText).width, h - 4] });
    this.axisBoxes = boxes;
  }

  shape(ctx, kind, x, y, r, fill = true) {
    ctx.beginPath();
    if (kind === "x") {
      ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r); ctx.moveTo(x - r, y + r); ctx.lineTo(x + r, y - r); ctx.stroke();
    } else if (kind === "diamond") {
      ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y); ctx.closePath();
      if (!fill) { ctx.stroke(); return; }
      ctx.fill();
      const stroke = ctx.strokeStyle, width = ctx.lineWidth;
      ctx.strokeStyle = "#ffffff"; ctx.lineWidth = 1; ctx.stroke();
      ctx.strokeStyle = stroke; ctx.lineWidth = width;
    } else if (kind === "dot") {
      ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fill();
    } else if (kind === "square") {
      ctx.rect(x - r, y - r, 2 * r, 2 * r); fill ? ctx.fill() : ctx.stroke();
    } else if (kind === "star") {
      for (let k = 0; k < 10; k++) {
        const a = -Math.PI / 2 + (k * Math.PI) / 5, rr = k % 2 ? r * 0.45 : r;
        k ? ctx.lineTo(x + rr * Math.cos(a), y + rr * Math.sin(a)) : ctx.moveTo(x + rr * Math.cos(a), y + rr * Math.sin(a));
      }
      ctx.closePath(); fill ? ctx.fill() : ctx.stroke();
    } else {
      ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.stroke();
    }
  }

  drawLine(ctx, l) {
    // a x + b y = c, clipped to the view
    const { w, h } = this, v = this.view;
    const [x0, y1] = toData(v, w, h, 0, 0), [x1, y0] = toData(v, w, h, w, h);
    const pts = [];
    if (Math.abs(l.b) > 1e-12) for (const x of [x0, x1]) { const y = (l.c - l.a * x) / l.b; if (y >= y0 && y <= y1) pts.push([x, y]); }
    if (Math.abs(l.a) > 1e-12) for (const y of [y0, y1]) { const x = (l.c - l.b * y) / l.a; if (x >= x0 && x <= x1) pts.push([x, y]); }
    if (pts.length < 2) return;
    ctx.strokeStyle = l.color || "#495057";
    ctx.lineWidth = l.width || 1.5;
    ctx.setLineDash(l.dash ? [6, 4] : []);
    const [ax, ay] = toScreen(v, w, h, pts[0][0], pts[0][1]), [bx, by] = toScreen(v, w, h, pts[1][0], pts[1][1]);
    ctx.beginPath(); ctx.moveTo(ax, ay); ctx.lineTo(bx, by); ctx.stroke();
    ctx.setLineDash([]);
    if (l.label) { ctx.fillStyle = l.color || "#495057"; ctx.font = FONT; ctx.fillText(l.label, Math.min(ax, bx) + 4, Math.min(ay, by) + 14); }
  }

  drawArrow(ctx, a, sx, sy, X, Y) {
    // from / to: a point index, or [x, y] in data units; several arrows share a style
    const at = (p) => (Array.isArray(p) ? [sx(p[0]), sy(p[1])] : [sx(X[p]), sy(Y[p])]);
    ctx.strokeStyle = a.color || "#e8590c";
    ctx.fillStyle = a.color || "#e8590c";
    for (let k = 0; k < a.from.length; k++) {
      const [x0, y0] = at(a.from[k]), [x1, y1] = at(a.to[k]);
      const width = a.widths ? a.widths[k] : a.width || 1.5;
      ctx.lineWidth = width;
      ctx.globalAlpha = a.alphas ? a.alphas[k] : 0.9;
      const ang = Math.atan2(y1 - y0, x1 - x0), hl = 7 + width;
      ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1 - Math.cos(ang) * hl * 0.6, y1 - Math.sin(ang) * hl * 0.6); ctx.stroke();
      ctx.beginPath(); ctx.moveTo(x1, y1);
      ctx.lineTo(x1 - hl * Math.cos(ang - 0.4), y1 - hl * Math.sin(ang - 0.4));
      ctx.lineTo(x1 - hl * Math.cos(ang + 0.4), y1 - hl * Math.sin(ang + 0.4));
      ctx.closePath(); ctx.fill();
    }
    ctx.globalAlpha = 1;
  }

  drawMarkers(ctx, m, sx, sy) {
    ctx.fillStyle = m.color || "#212529";
    ctx.strokeStyle = m.color || "#212529";
    ctx.lineWidth = m.width || 2;
    const size = m.size || 6;
    for (let k = 0; k < m.x.length; k++) {
      const px = sx(m.x[k]), py = sy(m.y[k]);
      this.shape(ctx, m.shape || "dot", px, py, size);
      let right = px + size;
      if (m.text && m.text[k]) {
        ctx.font = BOLD; ctx.fillStyle = m.color || "#212529";
        ctx.lineWidth = 3; ctx.strokeStyle = "rgba(255,255,255,0.85)"; ctx.lineJoin = "round";
        ctx.strokeText(m.text[k], px + size + 3, py + 4);  // a halo: the name stays readable over the points
        ctx.fillText(m.text[k], px + size + 3, py + 4);
        ctx.strokeStyle = m.color || "#212529"; ctx.lineWidth = m.width || 2;
        right = px + size + 3 + ctx.measureText(m.text[k]).width;
        // the mark and its name: the points' labels keep off them (drawLabels)
        const fp = fontPx(ctx.font);
        this.markerBoxes.push({ text: String(m.text[k]), box: [px - size, Math.min(py - size, py + 3 - fp), right + 1, Math.max(py + size, py + 4 + 0.3 * fp)] });
      }
      // a marker that stands for a group of points (a cluster's name) selects them when clicked
      if (m.codes) this.markerHits.push({ x0: px - size - 2, y0: py - 10, x1: right + 2, y1: py + 8, m, k });
    }
  }

  // Lines of equal density (or of any field): each layer's paths as x, y pairs, path j from starts[j].
  drawContours(ctx, c, sx, sy) {
    ctx.strokeStyle = c.color || "rgba(33,37,41,0.45)";
    ctx.lineWidth = c.width || 1;
    ctx.beginPath();
    const xy = c.xy, starts = c.starts, ends = xy.length / 2;
    for (let j = 0; j < starts.length; j++) {
      const a = starts[j], b = j + 1 < starts.length ? starts[j + 1] : ends;
      for (let i = a; i < b; i++) {
        if (i === a) ctx.moveTo(sx(xy[2 * i]), sy(xy[2 * i + 1]));
        else ctx.lineTo(sx(xy[2 * i]), sy(xy[2 * i + 1]));
      }
    }
    ctx.stroke();
  }

  // The group marker (a cluster's name) under the mouse, or null.
  markerAt(px, py) {
    for (const h of this.markerHits || []) if (px >= h.x0 && px <= h.x1 && py >= h.y0 && py <= h.y1) return h;
    return null;
  }

  drawLabels(ctx, sx, sy, X, Y) {
    const f = this.frame;
    this.labelBoxes = [];
    const { w, h } = this, keep = this.keep;
    // Forced in (placeLabels' `must`): the hovered point, the inspected one (a labelled ring) and
    // always_label. The selection comes next, before the rest, but only where there is room: a lasso
    // over hundreds of points would otherwise pile their labels on each other.
    const must = new Set();
    if (this.hover >= 0) must.add(this.hover);
    if (this.kfocus >= 0 && this.hasFocus) must.add(this.kfocus);
    for (const r of f.rings) if (r.label) for (const i of r.indices) must.add(i);
    for (const i of f.always) must.add(i);
    const bold = (i) => must.has(i) || f.selected.has(i);
    // a map without labels still names the points that must be named, by id
    const text = (i) => (f.labels ? f.labels[i] : must.has(i) ? pointName(f, i) : null);
    this.labelText = text;
    // The labelled points in view, most important first: the order is made once a frame of data (labelOrder), and
    // a frame walks only its head, so a pan over a million points costs what it labels. A point without a place
    // (NaN) is not in view: it has nowhere to be labelled.
    const inView = (i) => { const px = sx(X[i]), py = sy(Y[i]); return px >= 0 && px <= w && py >= 0 && py <= h; };
    const { order, rank } = this.labelsInOrder();
    const [bx0, by0] = toData(this.view, w, h, 0, h), [bx1, by1] = toData(this.view, w, h, w, 0);
    const top = firstInView(order, rank, LABEL_CANDIDATES, inView, () => this.index(), [bx0, by0, bx1, by1]);
    const widths = (this.widths ||= new Map());
    const radius = (i) => (f.sizes ? f.sizes[i] : f.size);  // a point's mark, in pixels from its centre
    const cands = [...must].filter((i) => i >= 0 && i < f.n && text(i) != null && text(i) !== "" && (!keep || keep[i]));
    const chosen = [...f.selected].filter((i) => i >= 0 && i < f.n && rank[i] >= 0 && !must.has(i) && inView(i));
    for (const i of chosen.sort((a, b) => rank[a] - rank[b])) cands.push(i);
    for (const i of top) if (!bold(i)) cands.push(i);
    const boxes = cands.map((i) => {
      // measured in the font it is drawn in (bold is wider)
      const label = String(text(i)), font = bold(i) ? BOLD : FONT, wkey = `${font}|${label}`;
      let tw = widths.get(wkey);
      if (tw === undefined) { ctx.font = font; tw = ctx.measureText(label).width; widths.set(wkey, tw); }
      return { i, x: sx(X[i]), y: sy(Y[i]), w: tw + 2, h: Math.round(14 * TYPE_SCALE), must: must.has(i), r: radius(i) };
    });
    // Kept off: the axis titles, the scale bar and the markers' names; and, where the points are few enough to
    // look at each, off the other points' marks (a label over a labelled point reads as that point's).
    const named = new Set(cands), dots = [];
    if (this.shownCount() <= DOT_OBSTACLES) {
      for (let i = 0; i < f.n; i++) {
        if (keep && !keep[i]) continue;
        const x = sx(X[i]), y = sy(Y[i]);
        if (x > -20 && x < w + 20 && y > -20 && y < h + 20) dots.push({ x, y, r: radius(i), i, named: named.has(i) });
      }
    }
    const blocked = [...(this.axisBoxes || []), ...(this.markerBoxes || [])].map((b) => b.box);
    // a map with few labels names every labelled point: a label with no room beside its point goes a little
    // way off, joined to it by a leader line
    const placed = placeLabels(boxes, w, h, { gap: LABEL_GAP, blocked, dots, leaders: boxes.length <= LEADER_LABELS });
    const at = new Map(boxes.map((b) => [b.i, b]));
    ctx.strokeStyle = "rgba(73,80,87,0.7)";
    ctx.lineWidth = 1;
    for (const { i, box, leader } of placed) {
      const { x, y, r } = at.get(i), [qx, qy] = leaderEnd(x, y, box), d = Math.hypot(qx - x, qy - y);
      if ((!leader && d <= r + 6) || d <= r) continue;
      ctx.beginPath(); ctx.moveTo(x + ((qx - x) * r) / d, y + ((qy - y) * r) / d); ctx.lineTo(qx, qy); ctx.stroke();
    }
    ctx.textBaseline = "top";
    ctx.lineJoin = "round";
    for (const { i, box } of placed) {
      const label = String(text(i));
      ctx.font = bold(i) ? BOLD : FONT;
      ctx.lineWidth = 3;
      ctx.strokeStyle = "rgba(255,255,255,0.9)";
      ctx.strokeText(label, box[0] + 1, box[1] + 1);
      ctx.fillStyle = bold(i) ? "#111111" : "#343a40";
      ctx.fillText(label, box[0] + 1, box[1] + 1);
    }
    ctx.textBaseline = "alphabetic";
    this.labelBoxes = placed;  // each with how far from its point it may be without a leader line (near)
  }

  // The points that may be labelled, most important first, and each point's place in that order (-1: none); made
  // again only when the frame or the legend's choice changes.
  labelsInOrder() {
    const f = this.frame, keep = this.keep, c = this.labelCache;
    if (c && c.frame === f && c.keep === keep) return c;
    const order = f.labels ? labelOrder(f.labels, f.priority, keep) : new Int32Array(0);
    this.labelCache = { frame: f, keep, order, rank: orderRank(order, f.n) };
    return this.labelCache;
  }

  drawOverlay() {
    const ctx = this.overlay.getContext("2d"), dpr = this.dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.w, this.h);
    const d = this.drag;
    if (!d || d.kind === "pan") return;
    ctx.strokeStyle = "rgba(33,37,41,0.8)";
    ctx.fillStyle = "rgba(51,102,204,0.08)";
    ctx.setLineDash([4, 3]);
    ctx.lineWidth = 1.2;
    ctx.beginPath();
    if (d.kind === "box") ctx.rect(d.x0, d.y0, d.x1 - d.x0, d.y1 - d.y0);
    else { d.path.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y))); ctx.closePath(); }
    ctx.fill(); ctx.stroke();
    ctx.setLineDash([]);
  }

  // A sweep of one setting (several maps, each aligned to its neighbour): a slider under the map that morphs
  // between them in the browser. At a whole step the map is that setting's own; between two, each point is
  // drawn part of the way from one to the next.
  drawScrubber(old) {
    const f = this.frame, w = f.sweep;
    const same = w && old && old.sweep && old.sweep.values.join() === w.values.join() && this.scrubInput;
    if (!w) { this.scrub.replaceChildren(); this.scrubInput = null; this.scrubT = null; return; }
    if (!same) {
      this.scrub.replaceChildren();
      const label = el("label", "lab-scrub-label", this.scrub);
      label.textContent = `Sweep of ${w.name}`;
      const input = el("input", "lab-scrub-input", this.scrub);
      input.type = "range"; input.min = "0"; input.max = String(w.values.length - 1); input.step = "0.01";
      input.setAttribute("aria-label", `Sweep of ${w.name}: morph the map between its settings`);
      const ends = el("span", "lab-scrub-value", this.scrub);
      this.scrubInput = input; this.scrubValue = ends;
      input.addEventListener("input", () => this.scrubTo(Number(input.value)));
    }
    this.scrubInput.value = String(w.at);
    this.scrubT = null;  // the page's own map is on screen until the scrubber moves
    this.scrubValue.textContent = `${w.name} ${fmt(w.values[w.at])} (the page's map)`;
  }

  scrubTo(t) {
    const f = this.frame, w = f.sweep;
    const k = Math.min(w.values.length - 2, Math.floor(t)), u = t - k;
    const ax = w.xs[k], ay = w.ys[k], bx = w.xs[k + 1], by = w.ys[k + 1], n = f.n;
    const x = new Float32Array(n), y = new Float32Array(n);
    for (let i = 0; i < n; i++) { x[i] = ax[i] + (bx[i] - ax[i]) * u; y[i] = ay[i] + (by[i] - ay[i]) * u; }
    cancelAnimationFrame(this.anim);
    this.anim = null;
    this.shown = { x, y };
    this.scrubT = t;
    const value = w.values[k] + (w.values[k + 1] - w.values[k]) * u;
    const whole = Math.abs(t - Math.round(t)) < 1e-9;
    this.scrubValue.textContent = whole ? `${w.name} ${fmt(w.values[Math.round(t)])}`
      : `${w.name} between ${fmt(w.values[k])} and ${fmt(w.values[k + 1])} (about ${fmt(value)})`;
    if (this.auto) this.view = this.fit(bounds(x, y, this.keep));
    this.draw();
  }

  drawLegend() {
    const f = this.frame;
    this.legend.replaceChildren();
    this.bar.replaceChildren();
    const c = f.color;
    this.legendEntries = [];  // what each entry shows: its name, colour and shape (state() gives them to tests)
    if (c.kind === "category") {
      if (c.title) el("span", "lab-legend-title", this.legend).textContent = c.title;
      c.names.forEach((name, k) => {
        const item = el("button", "lab-legend-item", this.legend);
        item.dataset.code = String(k);
        if (this.hidden.has(k)) item.classList.add("off");
        item.type = "button";
        item.setAttribute("aria-pressed", String(!this.hidden.has(k)));
        const mark = categoryMark(c, k), colour = c.colors[k % c.colors.length];
        const sw = el("span", `lab-swatch${mark >= 0 ? ` mark-${MARKS[mark]}` : ""}`, item);
        sw.style.background = colour;
        el("span", null, item).textContent = String(name);
        this.legendEntries.push({ name: String(name), colour, shape: mark >= 0 ? MARKS[mark] : "circle", category: k });
        item.title = "Click to hide or show";
        item.onclick = () => {
          this.hidden.has(k) ? this.hidden.delete(k) : this.hidden.add(k);
          item.classList.toggle("off");
          item.setAttribute("aria-pressed", String(!this.hidden.has(k)));
          this.keep = this.visibility();
          this.access.describe(f.title || "Map", describeMap(f, this.keep));
          this.draw();
        };
      });
    } else if (c.kind === "continuous") {
      const title = el("span", "lab-legend-title", this.bar);
      title.textContent = c.title || "";
      el("span", "lab-bar-end", this.bar).textContent = fmt(c.min);
      const grad = el("span", "lab-gradient", this.bar);
      const stops = (SCALES[c.scale] || SCALES.viridis).map(([p, col]) => `rgb(${col.join(",")}) ${p * 100}%`);
      grad.style.background = `linear-gradient(to right, ${stops.join(",")})`;
      el("span", "lab-bar-end", this.bar).textContent = fmt(c.max);
    }
    // the layers' entries, each drawn as the layer is: a ring, a filled mark, a line, a dashed line or an arrow
    const kinds = [["ring", f.rings], ["marker", f.markers], ["arrow", f.arrows], ["edge", f.edges], ["line", f.lines],
                   ["contour", f.contours]];
    for (const [kind, group] of kinds) {
      for (const r of group) {
        if (!r.name || r.legend === false) continue;
        const shape = layerSwatch(kind, r), colour = r.color || "#212529";
        const item = el("span", "lab-legend-item static", this.legend);
        const sw = el("span", `lab-swatch ${shape === "ring" ? "ring" : `shape-${shape}`}`, item);
        if (shape === "ring" || shape === "dashed" || shape.endsWith("-outline")) sw.style.borderColor = colour;
        else sw.style.background = colour;
        el("span", null, item).textContent = r.name;
        this.legendEntries.push({ name: String(r.name), colour, shape });
      }
    }
  }

  // ------------------------------------------------------------ the mouse
  local(ev) {
    const r = this.overlay.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  }

  pick(px, py, radius = 8) {
    const [x, y] = toData(this.view, this.w, this.h, px, py), g = this.index();
    return g ? gridNearest(g, this.shown.x, this.shown.y, this.keep, x, y, radius / this.view.s)
      : nearest(this.shown.x, this.shown.y, this.keep, x, y, radius / this.view.s);
  }

  // The grid a hover, a click, a box or a lasso asks instead of every point (gridIndex): built once for the
  // points as they rest, past GRID_ABOVE points; a glide's frames move every point, so they scan.
  index() {
    const s = this.shown;
    if (!s || s.x.length < GRID_ABOVE || this.anim != null) return null;
    if (this.gridFor !== s.x || this.gridForY !== s.y) {
      this.gridIx = gridIndex(s.x, s.y);
      this.gridFor = s.x; this.gridForY = s.y;
    }
    return this.gridIx;
  }

  bind() {
    const o = this.overlay;
    o.addEventListener("wheel", (ev) => {
      if (!this.frame) return;
      ev.preventDefault();
      const [px, py] = this.local(ev);
      this.view = zoomAt(this.view, this.w, this.h, px, py, Math.exp(-ev.deltaY * 0.0015));
      this.auto = false;
      this.gestureStep();
      this.draw();
    }, { passive: false });
    o.addEventListener("pointerdown", (ev) => {
      if (!this.frame || ev.button !== 0) return;
      const [px, py] = this.local(ev);
      const mode = this.frame.mode;
      const kind = ev.shiftKey || mode === "pan" || mode === "click" ? "pan" : mode;
      this.drag = { kind, x0: px, y0: py, x1: px, y1: py, path: [[px, py]], moved: false, view: this.view };
      o.setPointerCapture(ev.pointerId);
    });
    o.addEventListener("pointermove", (ev) => {
      if (!this.frame) return;
      const [px, py] = this.local(ev);
      const d = this.drag;
      if (d) {
        d.moved = d.moved || Math.abs(px - d.x0) + Math.abs(py - d.y0) > 3;
        d.x1 = px; d.y1 = py;
        if (d.kind === "lasso") d.path.push([px, py]);
        if (d.kind === "pan" && d.moved) {
          this.view = { ...d.view, cx: d.view.cx - (px - d.x0) / d.view.s, cy: d.view.cy + (py - d.y0) / d.view.s };
          this.auto = false;
          this.gestureStep();
          this.draw();
        } else this.drawOverlay();
        return;
      }
      this.overlay.style.cursor = this.markerAt(px, py) ? "pointer" : "";
      const i = this.pick(px, py);
      if (i !== this.hover) { this.hover = i; this.draw(); }
      this.showTip(i, px, py);
    });
    o.addEventListener("pointerleave", () => { if (!this.drag) { this.hover = -1; this.tip.style.display = "none"; this.draw(); } });
    o.addEventListener("pointerup", (ev) => {
      const d = this.drag;
      this.drag = null;
      if (!d || !this.frame) return;
      if (d.kind === "pan" && d.moved) this.settle();  // the pan is over: its points drawn anew at once
      const [px, py] = this.local(ev);
      const X = this.shown.x, Y = this.shown.y, { w, h } = this, v = this.view;
      if (d.kind === "box" && d.moved) {
        const [ax, ay] = toData(v, w, h, d.x0, d.y0), [bx, by] = toData(v, w, h, px, py);
        const g = this.index();
        this.send("box", g ? gridBox(g, X, Y, this.keep, ax, ay, bx, by) : boxHits(X, Y, this.keep, ax, ay, bx, by));
      } else if (d.kind === "lasso" && d.moved) {
        this.send("lasso", lassoHits(X, Y, this.keep, d.path.map(([x, y]) => toData(v, w, h, x, y)), this.index()));
      } else if (!d.moved && this.markerAt(px, py)) {
        const h = this.markerAt(px, py), code = h.m.selectOf[h.k], codes = h.m.codes, out = [];
        for (let i = 0; i < codes.length; i++) if (codes[i] === code && (!this.keep || this.keep[i])) out.push(i);
        this.send("group", out);
      } else if (!d.moved) {
        const i = this.pick(px, py);
        if (i >= 0 && this.frame.mode !== "pan") this.send("click", [i]);
      }
      this.drawOverlay();
    });
    o.addEventListener("dblclick", () => {
      if (!this.frame) return;
      this.resetView();
      if (this.frame.selected.size) this.send("clear", []);
    });
    this.btnReset.onclick = () => this.resetView();
    this.stage.addEventListener("keydown", (ev) => this.onKey(ev));
    this.stage.addEventListener("focus", () => { this.hasFocus = true; if (this.kfocus >= 0) this.focusPoint(this.kfocus, false); });
    this.stage.addEventListener("blur", () => { this.hasFocus = false; this.tip.style.display = "none"; if (this.frame) this.draw(); });
    this.btnPng.onclick = () => this.png();
  }

  // ------------------------------------------------------------ the keys
  onKey(ev) {
    const f = this.frame;
    if (!f || !f.n || this.access.sharedKey(ev)) return;
    const k = ev.key, X = this.shown.x, Y = this.shown.y, keep = this.keep;
    const here = this.kfocus >= 0 && this.kfocus < f.n && (!keep || keep[this.kfocus]) ? this.kfocus : -1;
    let next = null;
    if (k in DIRECTIONS) {
      const [ux, uy] = DIRECTIONS[k];
      next = here < 0 ? this.startPoint() : stepTo(X, Y, keep, here, ux, uy);
      if (next < 0) { ev.preventDefault(); this.access.announce(`No point further ${AHEAD[k]}.`); return; }
    } else if (k === "Home" || k === "End") {
      next = extreme(X, Y, keep, k === "End");
    } else if (k === "Enter") {
      if (here < 0) return;
      this.send("click", [here]);
      this.access.announce(`Inspecting ${tipTitle(f, here)}.`);
    } else if (k === " " || k === "Spacebar") {
      if (here < 0) { ev.preventDefault(); return; }
      const sel = this.keySel || new Set(f.selected);
      if (sel.has(here)) sel.delete(here); else sel.add(here);
      this.sendKeys(sel, `${tipTitle(f, here)} ${sel.has(here) ? "added to" : "taken out of"} the selection`);
    } else if (k === "Escape") {
      if (!this.keySel && !f.selected.size) return;
      this.keySel = null;
      this.send("clear", []);
      this.access.announce("Selection cleared.");
    } else if (k === "+" || k === "=" || k === "-" || k === "_") {
      const [px, py] = here >= 0 ? toScreen(this.view, this.w, this.h, X[here], Y[here]) : [this.w / 2, this.h / 2];
      this.view = zoomAt(this.view, this.w, this.h, px, py, k === "-" || k === "_" ? 1 / 1.5 : 1.5);
      this.auto = false;
      this.draw();
      this.access.announce(k === "-" || k === "_" ? "Zoomed out." : "Zoomed in.");
    } else return;
    ev.preventDefault();
    if (next === null || next < 0) return;
    if (ev.shiftKey && (k in DIRECTIONS || k === "Home" || k === "End")) {  // extend the selection as it moves
      const sel = this.keySel || new Set(f.selected);
      if (here >= 0) sel.add(here);
      sel.add(next);
      this.focusPoint(next, false);
      this.sendKeys(sel, pointSpoken(f, next).replace(/\.$/, ""));
      return;
    }
    this.focusPoint(next);
  }

  // The point the arrows start from: the one nearest the middle of the view.
  startPoint() {
    const [x, y] = toData(this.view, this.w, this.h, this.w / 2, this.h / 2);
    return closest(this.shown.x, this.shown.y, this.keep, x, y);
  }

  // Move the keys' focus to point i: the view follows it when it leaves the screen; its tooltip shows and its
  // label, fields and place are announced (`say` false: shown again without a word, as the map takes focus).
  focusPoint(i, say = true) {
    const f = this.frame;
    this.kfocus = i;
    let [px, py] = toScreen(this.view, this.w, this.h, this.shown.x[i], this.shown.y[i]);
    if (px < 8 || py < 8 || px > this.w - 8 || py > this.h - 8) {
      this.view = { ...this.view, cx: this.shown.x[i], cy: this.shown.y[i] };
      this.auto = false;
      [px, py] = [this.w / 2, this.h / 2];
    }
    this.draw();
    this.showTip(i, px, py);
    if (say) this.access.announce(pointSpoken(f, i));
  }

  sendKeys(sel, said) {
    this.keySel = sel;
    const f = this.frame;
    this.send("keys", [...sel].sort((a, b) => a - b));
    const n = sel.size;
    this.access.announce(`${said}. ${counted(n, "point")} selected.`);
  }

  // The table view: every point shown, with its label, place and tooltip fields.
  tableRows() {
    const f = this.frame;
    if (!f) return { columns: [], n: 0, row: () => [] };
    const rows = [];
    for (let i = 0; i < f.n; i++) if (!this.keep || this.keep[i]) rows.push(i);
    const colour = f.color.kind === "category" ? (f.color.title || "colour") : f.color.kind === "continuous" ? (f.color.title || "value") : null;
    const fields = f.hover.fields.filter((h) => h.name !== colour);
    const columns = ["point", ...(f.labels ? ["label"] : []), f.xTitle || "x", f.yTitle || "y",
                     ...(colour ? [colour] : []), ...fields.map((h) => h.name), "selected"];
    const row = (k) => {
      const i = rows[k];
      return [pointName(f, i), ...(f.labels ? [f.labels[i] ?? ""] : []), significant(this.shown.x[i], 4), significant(this.shown.y[i], 4),
              ...(colour ? [f.color.kind === "category" ? (f.color.names[f.codes[i]] ?? "") : significant(f.values[i], 4)] : []),
              ...fields.map((h) => fieldValue(h, i)), f.selected.has(i) ? "yes" : ""];
    };
    return { columns, n: rows.length, row };
  }

  resetView() {
    this.auto = true;
    this.view = this.fit(bounds(this.shown.x, this.shown.y, this.keep));
    this.draw();
    this.askTexts();
  }

  send(kind, indices) {
    this.lastSent = { kind, indices };
    if (this.api) this.api.setTriggerValue("select", { kind, indices, frame: this.frame.sig });
  }

  showTip(i, px, py) {
    const tip = this.tip, f = this.frame;
    if (i < 0) { tip.style.display = "none"; return; }
    tip.replaceChildren();
    const head = el("b", null, tip);
    head.textContent = tipTitle(f, i);
    for (const field of f.hover.fields) {
      const row = el("div", null, tip);
      row.textContent = `${field.name}: ${fieldValue(field, i)}`;
    }
    tip.style.display = "block";
    const left = px + 14 + tip.offsetWidth > this.w ? px - 14 - tip.offsetWidth : px + 14;
    tip.style.left = `${Math.max(0, left)}px`;
    tip.style.top = `${Math.max(0, Math.min(py + 10, this.h - tip.offsetHeight))}px`;
  }

  png() {
    const out = document.createElement("canvas");
    out.width = this.canvas.width; out.height = this.canvas.height + 30 * this.dpr;
    const ctx = out.getContext("2d");
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, out.width, out.height);
    ctx.scale(this.dpr, this.dpr);
    ctx.fillStyle = "#212529"; ctx.font = "600 15px sans-serif"; ctx.fillText(this.frame.title.replace(/\n/g, " · "), 8, 20);
    ctx.drawImage(this.canvas, 0, 30, this.w, this.h);
    const a = document.createElement("a");
    a.download = `${(this.frame.mapId || "map").replace(/[^\w.-]+/g, "_")}.png`;
    a.href = out.toDataURL("image/png");
    a.click();
  }

  // ------------------------------------------------------------ for tests and benchmarks
  state() {
    const f = this.frame, { w, h } = this, v = this.view, r = this.canvas.getBoundingClientRect();
    const screen = (i) => { const [px, py] = toScreen(v, w, h, this.shown.x[i], this.shown.y[i]); return [px + r.left, py + r.top]; };
    return {
      n: f.n, frames: this.frames, gliding: this.anim != null, mode: f.mode, scale: [v.s, v.s],
      canvas: [r.left, r.top, r.width, r.height], x: Array.from(this.shown.x), y: Array.from(this.shown.y),
      labels: this.labelBoxes.map(({ i, box, leader, near }) => ({ i, text: String(this.labelText(i)), box, leader, near })),
      screen, axes: this.axisBoxes || [], markerTexts: this.markerBoxes || [], legend: this.legendEntries || [],
      margins: this.margins(),
      hidden: [...this.hidden], focus: f.focus || [], view: { ...v },
      groups: (this.markerHits || []).map(({ x0, y0, x1, y1, m, k }) => ({
        text: m.text ? m.text[k] : "", box: [x0 + r.left, y0 + r.top, x1 + r.left, y1 + r.top] })),
      contours: f.contours.map((c) => ({ name: c.name, paths: c.starts.length })),
      sweep: f.sweep ? { name: f.sweep.name, values: f.sweep.values, at: f.sweep.at, t: this.scrubT } : null,
      focused: this.kfocus, keySelection: this.keySel ? [...this.keySel] : null, scaleBar: this.scaleText,
      access: this.access.state(), font: FONT, height: f.height,
      // what drew the points last: "webgl2" (the GPU) or "canvas" (the CPU); reused: a gesture's frame that moved
      // the last picture of them instead of drawing them anew; softwareGL: whether this browser's WebGL 2 is emulated
      renderer: this.renderer || "canvas", reused: !!this.reused, softwareGL: softwareGL(),
      legendFont: parseFloat(getComputedStyle(this.legend).fontSize),
      titleFont: parseFloat(getComputedStyle(this.title).fontSize),
    };
  }
}

// The tops of the charts under `root` (Plotly's, and the canvas components' hosts), shadow roots included.
function figureTops(root) {
  const out = [];
  const walk = (r) => {
    for (const e of r.querySelectorAll(".stPlotlyChart, canvas")) {
      const b = e.getBoundingClientRect();
      if (b.width > 50 && b.height > 50) out.push(((e.getRootNode && e.getRootNode().host) || e).getBoundingClientRect().top);
    }
    for (const e of r.querySelectorAll("*")) if (e.shadowRoot) walk(e.shadowRoot);
  };
  walk(root);
  return out;
}

function sameMembers(a, b) {
  if (a.size !== b.size) return false;
  for (const v of a) if (!b.has(v)) return false;
  return true;
}

// The size in pixels of a CSS font ("600 12px ..."), 12 if it names none.
function fontPx(font) {
  const m = /(\d+(?:\.\d+)?)px/.exec(font || "");
  return m ? parseFloat(m[1]) : 12;
}

// How a layer's legend entry shows it: its mark (a ring for an outlined circle), or a line, a dashed line or an arrow.
function layerSwatch(kind, r) {
  if (kind === "arrow") return "arrow";
  if (kind === "edge" || kind === "line" || kind === "contour") return r.dash ? "dashed" : "line";
  const shape = r.shape || (kind === "ring" ? "circle" : "dot");
  if (shape === "circle") return "ring";  // a ring layer's circle, a marker's circle: drawn as an outline
  if (kind === "ring" && r.fill === false && (shape === "square" || shape === "diamond" || shape === "star"))
    return `${shape}-outline`;
  return shape;
}

function fmt(v) {
  return Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(1) : +v.toPrecision(3);
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let map = parentElement.__labMap;
  if (!map) {
    for (const stale of parentElement.querySelectorAll(".lab-map")) stale.remove();
    map = parentElement.__labMap = new LabMap(parentElement);
    // drawn again only when the canvas's size changed (the legend's line coming or going after a new frame of
    // data resizes the box, not the canvas: a second draw of a million points for nothing)
    const resized = () => {
      if (!map.frame) return;
      const before = `${map.w}x${map.h}@${map.dpr}`;
      map.refit(); map.resize();
      if (`${map.w}x${map.h}@${map.dpr}` !== before || !map.drawnOnce) map.draw();
    };
    const ro = new ResizeObserver(resized);
    ro.observe(parentElement.host || map.box);
    map.ro = ro;
    map.unfit = fitted(resized);
  }
  if (data) map.update(data, { setTriggerValue });
  // Streamlit runs this when the element goes, and also when a call is overtaken by newer data;
  // only a map whose element left the page is taken down.
  return () => setTimeout(() => {
    if (parentElement.isConnected || parentElement.__labMap !== map) return;
    map.ro.disconnect();
    map.unfit();
    cancelAnimationFrame(map.anim);
    map.dispose();
    if (map.frame && registry[map.frame.mapId] === map) delete registry[map.frame.mapId];
    delete parentElement.__labMap;
  }, 0);
}
