// The lab's 3-D view: points in space on a plain canvas, turned by dragging, zoomed by the wheel,
// double-click to reset; marks drawn over the cloud (always visible), segments under it, a tooltip. The keys
// turn it too (the arrows, + and - to zoom, Home to reset, each new view announced), and T shows the points as
// a table. The pure parts live in logic.js (inlined above this file by app/ui/canvas.py).

// The view's type: 12 px, times the data's typeScale in presentation mode.
let V3_FONT = typeFont(12);
const viewRegistry = (globalThis.__lab3d = globalThis.__lab3d || {});
const VIEW_KEYS = "Keys: Left and Right arrows turn the view, Up and Down tip it, plus and minus zoom, Home goes " +
  "back to the first view, T shows the points as a table.";

function v3Node(tag, cls, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (parent) parent.appendChild(e);
  return e;
}

function v3Bytes(b64) {
  const bin = atob(b64), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

class Lab3D {
  constructor(root) {
    this.box = v3Node("div", "lab-view3d", root);
    this.canvas = v3Node("canvas", "lab-3d-canvas", this.box);
    this.tip = v3Node("div", "lab-3d-tip", this.box);
    this.data = null; this.cloudSig = null;
    // the canvas itself takes the focus and the keys: it is the whole view (the Table button sits over its corner)
    this.stage = this.canvas;
    this.access = new LabAccess(this.box, this.canvas, { kind: "3-D view", keys: VIEW_KEYS });
    this.bind();
  }

  update(data) {
    V3_FONT = typeFont(12, data.typeScale || 1);
    this.box.classList.toggle("lab-present", (data.typeScale || 1) > 1);
    if (this.data && this.data.sig === data.sig) return;
    if (data.cloudSig !== this.cloudSig) {  // the cloud is sent again with every run; decoded when it changed
      const f32 = (s) => new Float32Array(v3Bytes(s).buffer);
      this.cloud = { x: f32(data.x), y: f32(data.y), z: f32(data.z), rgb: v3Bytes(data.rgb),
                     ids: new Int32Array(v3Bytes(data.ids).buffer) };
      this.cloudSig = data.cloudSig;
    }
    this.segments = data.segments ? new Float32Array(v3Bytes(data.segments).buffer) : null;
    const first = !this.data || this.data.viewId !== data.viewId;
    this.data = data;
    if (first || !this.angles) this.reset(false);
    if (data.viewId) viewRegistry[data.viewId] = this;
    this.draw();
    const segments = this.segments ? Math.floor(this.segments.length / 6) : 0;
    this.access.describe(viewName(data.title, this.cloud.x.length, data.marks), describeView(this.cloud, data.marks, segments));
    this.access.tableFrom(() => viewTable(this.cloud, this.data.marks));
  }

  onKey(ev) {
    if (!this.data || this.access.sharedKey(ev)) return;
    const next = turnBy(this.angles, ev.key, this.data);
    if (!next) return;
    ev.preventDefault();
    this.angles = next;
    this.draw();
    this.access.announce(anglesSpoken(next));
  }

  reset(redraw = true) {
    this.angles = { yaw: this.data.yaw, pitch: this.data.pitch, zoom: 1 };
    if (redraw) this.draw();
  }

  draw() {
    const d = this.data;
    if (!d) return;
    const dpr = window.devicePixelRatio || 1, w = Math.max(120, this.box.clientWidth || 400);
    const h = fitToWindow(d.height || 440, !!d.fit, 90);
    this.w = w; this.h = h;
    this.canvas.width = Math.round(w * dpr); this.canvas.height = Math.round(h * dpr);
    this.canvas.style.width = `${w}px`; this.canvas.style.height = `${h}px`;
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const { yaw, pitch, zoom } = this.angles, scale = (0.95 * Math.min(w, h) / (d.extent || 1)) * zoom;
    const c = this.cloud, cx = w / 2, cy = h / 2;
    if (this.segments) {  // the neighbourhood graph under the points
      ctx.strokeStyle = "rgba(70,70,70,0.6)"; ctx.lineWidth = 1; ctx.beginPath();  // 3:1 on white
      const s = this.segments;
      for (let k = 0; k + 5 < s.length; k += 6) {
        const a = project(s[k], s[k + 1], s[k + 2], yaw, pitch), b = project(s[k + 3], s[k + 4], s[k + 5], yaw, pitch);
        ctx.moveTo(cx + a[0] * scale, cy - a[1] * scale); ctx.lineTo(cx + b[0] * scale, cy - b[1] * scale);
      }
      ctx.stroke();
    }
    const p = projectAll(c.x, c.y, c.z, yaw, pitch, scale, cx, cy);
    this.shown = p;
    for (const i of depthOrder(p.depth)) {
      ctx.fillStyle = `rgb(${c.rgb[3 * i]},${c.rgb[3 * i + 1]},${c.rgb[3 * i + 2]})`;
      ctx.beginPath(); ctx.arc(p.sx[i], p.sy[i], d.radius || 2.2, 0, 2 * Math.PI); ctx.fill();
    }
    this.markPixels = [];
    for (const m of d.marks) {  // over the cloud, always visible
      for (let k = 0; k < m.ids.length; k++) {
        const [r, u] = project(m.xyz[3 * k], m.xyz[3 * k + 1], m.xyz[3 * k + 2], yaw, pitch);
        const x = cx + r * scale, y = cy - u * scale;
        ctx.beginPath(); ctx.arc(x, y, m.size, 0, 2 * Math.PI);
        if (m.outline) { ctx.strokeStyle = m.color; ctx.lineWidth = 1.2; ctx.stroke(); } else { ctx.fillStyle = m.color; ctx.fill(); }
        this.markPixels.push({ name: m.name, id: m.ids[k], x, y });
      }
    }
    this.draws = (this.draws || 0) + 1;
  }

  bind() {
    const cv = this.canvas;
    cv.addEventListener("pointerdown", (e) => {
      this.drag = { x: e.clientX, y: e.clientY, yaw: this.angles.yaw, pitch: this.angles.pitch };
      cv.setPointerCapture(e.pointerId); this.tip.style.display = "none";
    });
    cv.addEventListener("pointermove", (e) => {
      if (this.drag) {
        this.angles.yaw = this.drag.yaw + (e.clientX - this.drag.x) * 0.01;
        this.angles.pitch = Math.max(-1.5, Math.min(1.5, this.drag.pitch + (e.clientY - this.drag.y) * 0.01));
        this.draw();
        return;
      }
      this.hover(e);
    });
    const end = () => { this.drag = null; };
    cv.addEventListener("pointerup", end); cv.addEventListener("pointercancel", end);
    cv.addEventListener("pointerleave", () => { this.tip.style.display = "none"; });
    cv.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.angles.zoom = Math.max(0.2, Math.min(20, this.angles.zoom * Math.exp(-e.deltaY * 0.001)));
      this.draw();
    }, { passive: false });
    cv.addEventListener("dblclick", () => this.reset());
    this.stage.addEventListener("keydown", (ev) => this.onKey(ev));
  }

  hover(e) {
    if (!this.shown) return;
    const r = this.canvas.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
    let id = -1;
    for (const m of this.markPixels) if ((m.x - px) ** 2 + (m.y - py) ** 2 <= 36) { id = m.id; break; }
    if (id < 0) {
      const i = nearestProjected(this.shown.sx, this.shown.sy, this.shown.depth, px, py, 6);
      if (i >= 0) id = this.cloud.ids[i];
    }
    if (id < 0) { this.tip.style.display = "none"; return; }
    this.tip.textContent = `point ${id}`;
    this.tip.style.display = "block";
    this.tip.style.left = `${Math.min(px + 12, this.w - 80)}px`; this.tip.style.top = `${Math.max(0, py - 28)}px`;
  }

  // for tests: how the view is turned, where the marks were drawn (canvas pixels) and what a screen reader is given
  state() {
    return { n: this.cloud.x.length, angles: { ...this.angles }, marks: this.markPixels, draws: this.draws,
             canvas: this.canvas.getBoundingClientRect().toJSON(),
             access: this.access.state() };
  }
}

export default function (component) {
  const { data, parentElement } = component;
  let view = parentElement.__lab3d;
  if (!view) {
    for (const stale of parentElement.querySelectorAll(".lab-view3d")) stale.remove();
    view = parentElement.__lab3d = new Lab3D(parentElement);
    view.ro = new ResizeObserver(() => view.draw());
    view.ro.observe(parentElement.host || view.box);
    view.unfit = fitted(() => view.draw());
  }
  if (data) view.update(data);
  return () => setTimeout(() => {
    if (parentElement.isConnected || parentElement.__lab3d !== view) return;
    view.ro.disconnect();
    view.unfit();
    if (view.data && viewRegistry[view.data.viewId] === view) delete viewRegistry[view.data.viewId];
    delete parentElement.__lab3d;
  }, 0);
}
