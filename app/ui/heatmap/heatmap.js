// The lab's heatmap: square matrices side by side on one canvas (one pixel a cell, scaled up without
// smoothing), the row names down the left serving every panel, each panel with its colour bar, column
// names under it, and a tooltip. The pure parts live in logic.js (inlined above this file).

// The heatmap's type: 11 px, times the data's typeScale in presentation mode.
let HM_FONT = typeFont(11);
const HM_TITLE = "600 14px 'Source Sans Pro', 'Source Sans 3', sans-serif";
const heatRegistry = (globalThis.__labHeatmaps = globalThis.__labHeatmaps || {});
const HEAT_KEYS = "Keys: the arrows move from cell to cell (Left and Right cross to the next matrix at its edge), " +
  "Home and End go to the row's first and last column, Page Up and Page Down to the same cell of the matrix " +
  "before or after, T shows every cell as a table.";
const HEAT_TOOLS = 24;  // the height of the row holding the Table button, taken from the chart's

function hmNode(tag, cls, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (parent) parent.appendChild(e);
  return e;
}

function hmDecode(b64) {
  const bin = atob(b64), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

function shortName(s, most = 18) {
  return s.length > most ? `${s.slice(0, most - 1)}…` : s;
}

function fmtValue(v) {
  if (!(v === v)) return "NaN";
  if (v === 0) return "0";
  return Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(2) : String(+v.toPrecision(3));
}

class LabHeatmap {
  constructor(root) {
    this.box = hmNode("div", "lab-heat", root);
    this.tools = hmNode("div", "lab-heat-tools", this.box);
    this.stage = hmNode("div", "lab-heat-stage", this.box);
    this.canvas = hmNode("canvas", "lab-heat-canvas", this.stage);
    this.tip = hmNode("div", "lab-heat-tip", this.stage);
    this.data = null; this.panels = []; this.layout = [];
    this.kfocus = null;  // the cell the keys reached, {panel, row, col}, or null
    this.hasFocus = false;
    this.access = new LabAccess(this.box, this.stage, { kind: "heatmap", keys: HEAT_KEYS, tools: this.tools });
    this.canvas.addEventListener("mousemove", (e) => this.hover(e));
    this.canvas.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    this.stage.addEventListener("keydown", (ev) => this.onKey(ev));
    this.stage.addEventListener("focus", () => { this.hasFocus = true; this.draw(); this.showFocus(); });
    this.stage.addEventListener("blur", () => { this.hasFocus = false; this.tip.style.display = "none"; this.draw(); });
  }

  update(data) {
    HM_FONT = typeFont(11, data.typeScale || 1);
    this.box.classList.toggle("lab-present", (data.typeScale || 1) > 1);
    if (this.data && this.data.sig === data.sig) return;
    this.data = data;
    this.panels = data.panels.map((p) => ({ ...p, z: hmDecode(p.z) }));
    this.images = this.panels.map((p) => {
      const img = document.createElement("canvas");
      img.width = img.height = Math.max(1, data.n);
      if (data.n) img.getContext("2d").putImageData(new ImageData(paint(p.z, data.n, p.stops, p.zmin, p.zmax), data.n, data.n), 0, 0);
      return img;
    });
    if (data.chartId) heatRegistry[data.chartId] = this;
    const f = this.kfocus;
    if (f && (f.panel >= this.panels.length || f.row >= data.n || f.col >= data.n)) this.kfocus = null;
    this.draw();
    this.access.describe(heatName(this.panels), describeHeatmap(data.names, this.panels));
    this.access.tableFrom(() => heatTable(this.data.names, this.panels));
    if (this.hasFocus) this.showFocus();
  }

  onKey(ev) {
    const d = this.data;
    if (!d || this.access.sharedKey(ev)) return;
    const next = cellStep(this.kfocus, ev.key, d.n, this.panels.length);
    if (!next) return;
    ev.preventDefault();
    this.kfocus = next;
    this.draw();
    this.showFocus();
    this.access.announce(cellSpoken(d.names, this.panels, next.panel, next.row, next.col));
  }

  // the tooltip of the cell the keys reached, beside it
  showFocus() {
    const f = this.kfocus, L = f && this.layout[f.panel];
    if (!L) return;
    const cell = L.size / Math.max(1, this.data.n);
    this.showTip(f.panel, f.row, f.col, L.x + (f.col + 1) * cell, L.y + f.row * cell);
  }

  showTip(j, row, col, x, y) {
    const d = this.data;
    this.tip.textContent = `${this.panels[j].title}: ${d.names[row]} and ${d.names[col]}: ${fmtValue(this.panels[j].z[row * d.n + col])}`;
    this.tip.style.display = "block";
    const w = this.canvas.clientWidth;
    this.tip.style.left = `${Math.max(0, Math.min(x + 12, w - this.tip.offsetWidth - 4))}px`;
    this.tip.style.top = `${Math.max(0, y - 30)}px`;
  }

  draw() {
    const d = this.data;
    if (!d) return;
    const dpr = window.devicePixelRatio || 1, n = d.n, names = d.names.map((s) => shortName(s));
    const w = Math.max(200, this.box.clientWidth || 600), most = Math.max(160, fitToWindow(d.height || 480, !!d.fit, HEAT_TOOLS + 8) - HEAT_TOOLS);
    const ctx = this.canvas.getContext("2d");
    ctx.font = HM_FONT;
    const widest = names.reduce((m, s) => Math.max(m, ctx.measureText(s).width), 0);
    const left = Math.min(130, widest + 8), barW = 64, gap = 18, top = 26;
    const bottom = Math.min(90, widest * 0.72 + 10);
    const k = this.panels.length;
    // side by side when each panel gets 150 px or more, else one under the other (a phone)
    const across = Math.floor(Math.min((w - left - k * barW - (k - 1) * gap) / k, most - top - bottom));
    const stacked = k > 1 && across < 150;
    const size = Math.max(20, stacked ? Math.floor(Math.min(w - left - barW, most - top - bottom)) : across);
    const rowH = top + size + bottom, h = stacked ? k * rowH : rowH;
    this.canvas.width = Math.round(w * dpr); this.canvas.height = Math.round(h * dpr);
    this.canvas.style.width = `${w}px`; this.canvas.style.height = `${h}px`;
    this.stage.style.height = `${h}px`;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const cell = size / Math.max(1, n), every = labelStep(cell);
    this.layout = [];
    this.panels.forEach((p, j) => {
      const x0 = stacked ? left : left + j * (size + barW + gap), y0 = stacked ? top + j * rowH : top;
      this.layout.push({ x: x0, y: y0, size });
      ctx.font = HM_TITLE; ctx.fillStyle = "#31333f"; ctx.textAlign = "left"; ctx.textBaseline = "alphabetic";
      ctx.fillText(p.title, x0, y0 - 8);
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(this.images[j], x0, y0, size, size);
      ctx.strokeStyle = "#868e96"; ctx.strokeRect(x0 + 0.5, y0 + 0.5, size - 1, size - 1);
      // column names under the panel, slanted, every `every`-th
      ctx.font = HM_FONT; ctx.fillStyle = "#495057"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
      for (let c = 0; c < n; c += every) {
        ctx.save(); ctx.translate(x0 + (c + 0.5) * cell, y0 + size + 6); ctx.rotate(-Math.PI / 4);
        ctx.fillText(names[c], 0, 0); ctx.restore();
      }
      // its colour bar
      const bx = x0 + size + 10, bh = Math.min(size, 240), by = y0 + (size - bh) / 2;
      for (let y = 0; y < bh; y++) {
        const c = colourAt(p.stops, 1 - y / (bh - 1 || 1));
        ctx.fillStyle = `rgb(${c[0]},${c[1]},${c[2]})`; ctx.fillRect(bx, by + y, 12, 1);
      }
      ctx.strokeStyle = "#868e96"; ctx.strokeRect(bx + 0.5, by + 0.5, 11, bh - 1);
      ctx.fillStyle = "#495057"; ctx.textAlign = "left";
      const mid = (p.zmin + p.zmax) / 2;
      [[p.zmax, by], [mid, by + bh / 2], [p.zmin, by + bh]].forEach(([v, y]) => ctx.fillText(fmtValue(v), bx + 16, y));
    });
    // row names down the left, shared by every panel (written beside each when they are stacked)
    ctx.font = HM_FONT; ctx.fillStyle = "#495057"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    this.rowLabels = 0;
    for (const L of stacked ? this.layout : this.layout.slice(0, 1)) {
      for (let r = 0; r < n; r += every) { ctx.fillText(names[r], left - 5, L.y + (r + 0.5) * cell); this.rowLabels++; }
    }
    const f = this.kfocus, L = f && this.layout[f.panel];
    if (L && this.hasFocus) {  // the cell the keys reached: a 2 px outline over a white halo, 8 px at the least
      const side = Math.max(cell, 8), x = L.x + (f.col + 0.5) * cell - side / 2, y = L.y + (f.row + 0.5) * cell - side / 2;
      ctx.save();
      ctx.lineWidth = 5; ctx.strokeStyle = "#ffffff"; ctx.strokeRect(x - 1, y - 1, side + 2, side + 2);
      ctx.lineWidth = 2; ctx.strokeStyle = "#1c3faa"; ctx.strokeRect(x - 1, y - 1, side + 2, side + 2);
      ctx.restore();
    }
    this.draws = (this.draws || 0) + 1;
  }

  hover(e) {
    const d = this.data;
    if (!d) return;
    const r = this.canvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
    for (let j = 0; j < this.layout.length; j++) {
      const L = this.layout[j], at = cellAt(x, y, L.x, L.y, L.size, d.n);
      if (!at) continue;
      this.showTip(j, at[0], at[1], x, y);
      return;
    }
    this.tip.style.display = "none";
  }

  // for tests: where each panel is drawn (canvas pixels), how many row names were written, the cell the keys
  // reached and what a screen reader is given
  state() {
    return { panels: this.layout, n: this.data.n, rowLabels: this.rowLabels, draws: this.draws,
             canvas: this.canvas.getBoundingClientRect().toJSON(), focused: this.kfocus,
             access: this.access.state() };
  }
}

export default function (component) {
  const { data, parentElement } = component;
  let chart = parentElement.__labHeat;
  if (!chart) {
    for (const stale of parentElement.querySelectorAll(".lab-heat")) stale.remove();
    chart = parentElement.__labHeat = new LabHeatmap(parentElement);
    chart.ro = new ResizeObserver(() => chart.draw());
    chart.ro.observe(parentElement.host || chart.box);
    chart.unfit = fitted(() => chart.draw());
  }
  if (data) chart.update(data);
  return () => setTimeout(() => {
    if (parentElement.isConnected || parentElement.__labHeat !== chart) return;
    chart.ro.disconnect();
    chart.unfit();
    if (chart.data && heatRegistry[chart.data.chartId] === chart) delete heatRegistry[chart.data.chartId];
    delete parentElement.__labHeat;
  }, 0);
}
