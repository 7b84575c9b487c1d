// What the lab's bar and line charts share (inlined above each by app/ui/canvas.py): their DOM (a head with the
// title and the Table button, a legend row, a canvas stage holding the tooltip), a redraw only for new data,
// the canvas sized to its box, the tooltip placed by the pointer or by the keys, the stage as a named, described
// region that takes the keys (LabAccess), and the mount that keeps one chart per element across reruns.

// The charts' type: 12 px, times the data's typeScale in presentation mode (every chart of a page alike).
let CHART_SCALE = 1;
let CHART_FONT = typeFont(12);
const chartRegistry = (globalThis.__labCharts = globalThis.__labCharts || {});

function el(tag, cls, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (parent) parent.appendChild(e);
  return e;
}

// The mark the keys leave on the canvas: a 2 px #1c3faa line over a white halo, readable on any colour.
function focusStroke(ctx, path) {
  ctx.save();
  ctx.setLineDash([]);
  ctx.lineWidth = 5; ctx.strokeStyle = "#ffffff"; path(); ctx.stroke();
  ctx.lineWidth = 2; ctx.strokeStyle = "#1c3faa"; path(); ctx.stroke();
  ctx.restore();
}

class CanvasChart {
  // `kind`: the chart's CSS class; `access`: what a screen reader calls it and a sentence on its keys
  // ({kind, keys}, as LabAccess takes them).
  constructor(root, kind, access) {
    this.box = el("div", `lab-chart ${kind}`, root);
    this.head = el("div", "lab-chart-head", this.box);
    this.title = el("div", "lab-chart-title", this.head);
    this.tools = el("div", "lab-chart-tools", this.head);
    this.legend = el("div", "lab-chart-legend", this.box);
    this.stage = el("div", "lab-chart-stage", this.box);
    this.canvas = el("canvas", "lab-chart-canvas", this.stage);
    this.tip = el("div", "lab-chart-tip", this.stage);
    this.data = null;
    this.hasFocus = false;
    this.access = new LabAccess(this.box, this.stage, { ...access, tools: this.tools });
    this.canvas.addEventListener("mousemove", (e) => this.hover(e));
    this.canvas.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    this.stage.addEventListener("keydown", (ev) => this.keydown(ev));
    this.stage.addEventListener("focus", () => { this.hasFocus = true; if (this.data) { this.draw(); this.showFocus(); } });
    this.stage.addEventListener("blur", () => { this.hasFocus = false; this.hideTip(); if (this.data) this.draw(); });
  }

  update(data) {
    if (this.data && this.data.sig === data.sig) return;
    this.data = data;
    CHART_SCALE = data.typeScale || 1;
    CHART_FONT = typeFont(12, CHART_SCALE);
    this.box.classList.toggle("lab-present", CHART_SCALE > 1);
    this.title.textContent = data.title || "";
    this.title.style.display = data.title ? "" : "none";
    this.legend.replaceChildren();
    this.fillLegend(data);
    this.legend.style.display = this.legend.childElementCount ? "" : "none";
    if (data.chartId) chartRegistry[data.chartId] = this;
    this.refocus(data);
    this.draw();
    const about = this.about(data);
    this.access.describe(about.name, about.text);
    this.access.tableFrom(() => this.tableRows());
    if (this.hasFocus) this.showFocus();
  }

  fillLegend() {}  // a chart that names its parts adds legendKey()s here

  // What the chart tells a screen reader ({name, text}), its table view ({columns, n, row}), where the keys'
  // focus goes when new data comes (refocus), the keys themselves (onKey: true when it used the key) and the
  // tooltip for the part the keys reached (showFocus): each chart its own.
  about() { return { name: "Chart", text: "" }; }
  tableRows() { return { columns: [], n: 0, row: () => [] }; }
  refocus() {}
  onKey() { return false; }
  showFocus() {}

  keydown(ev) {
    if (!this.data || this.access.sharedKey(ev)) return;
    if (this.onKey(ev)) ev.preventDefault();
  }

  // One legend entry: a swatch (a class of chart.css: "lab-chart-dash", "-dot" or "-rule") in `colour`.
  legendKey(swatch, colour, text) {
    const item = el("span", "lab-chart-key", this.legend);
    const s = el("span", swatch, item);
    if (swatch === "lab-chart-rule") s.style.borderTopColor = colour; else s.style.background = colour;
    el("span", "", item).textContent = text;
  }

  // The canvas sized to the box (its height the chart's, less the head and legend), cleared: [ctx, w, h].
  sized(height, minW, minH) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(minW, this.box.clientWidth || 400);
    // in presentation mode whole in the window under the tour's bar, with its title and legend as drawn
    const fit = !!(this.data && this.data.fit);
    const furniture = fit ? this.head.getBoundingClientRect().height + this.legend.getBoundingClientRect().height + 8
      : 26 + (this.legend.childElementCount ? 22 : 0);
    const h = Math.max(minH, fitToWindow(height, fit, furniture) - (fit ? 0 : furniture));
    this.canvas.width = Math.round(w * dpr); this.canvas.height = Math.round(h * dpr);
    this.canvas.style.width = `${w}px`; this.canvas.style.height = `${h}px`;
    this.stage.style.height = `${h}px`;
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    return [ctx, w, h];
  }

  // The tooltip with a bold first line and the others plain, by the pointer of event `e`, inside the chart.
  showTip(e, head, lines) {
    const r = this.canvas.getBoundingClientRect();
    this.placeTip(e.clientX - r.left, e.clientY - r.top, head, lines);
  }

  // The same tooltip by canvas pixel (x, y): the part the pointer or the keys reached.
  placeTip(x, y, head, lines) {
    this.tip.replaceChildren();
    el("div", "lab-chart-tip-head", this.tip).textContent = head;
    for (const line of lines) el("div", "", this.tip).textContent = line;
    this.tip.style.display = "block";
    const w = this.canvas.clientWidth || this.canvas.getBoundingClientRect().width;
    this.tip.style.left = `${Math.max(0, Math.min(x + 12, w - this.tip.offsetWidth - 4))}px`;
    this.tip.style.top = `${Math.max(0, y - 40)}px`;
  }

  hideTip() { this.tip.style.display = "none"; }
}

// The component's entry: one chart of class `Chart` per element (kept on it under `slot`), redrawn with the
// run's data, redrawn on resize, forgotten when the element leaves the page.
function mountChart(component, Chart, slot) {
  const { data, parentElement } = component;
  let chart = parentElement[slot];
  if (!chart) {
    for (const stale of parentElement.querySelectorAll(".lab-chart")) stale.remove();
    chart = parentElement[slot] = new Chart(parentElement);
    chart.ro = new ResizeObserver(() => { if (chart.data) chart.draw(); });
    chart.ro.observe(parentElement.host || chart.box);
    chart.unfit = fitted(() => { if (chart.data) chart.draw(); });
  }
  if (data) chart.update(data);
  return () => setTimeout(() => {
    if (parentElement.isConnected || parentElement[slot] !== chart) return;
    chart.ro.disconnect();
    chart.unfit();
    if (chart.data && chartRegistry[chart.data.chartId] === chart) delete chartRegistry[chart.data.chartId];
    delete parentElement[slot];
  }, 0);
}
