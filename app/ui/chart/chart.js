// What the lab's bar and line charts share (inlined above each by app/ui/canvas.py): their DOM (a title, a
// legend row, a canvas stage holding the tooltip), a redraw only for new data, the canvas sized to its box,
// the tooltip placed by the pointer, and the mount that keeps one chart per element across reruns.

const CHART_FONT = "12px 'Source Sans Pro', 'Source Sans 3', sans-serif";
const chartRegistry = (globalThis.__labCharts = globalThis.__labCharts || {});

function el(tag, cls, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (parent) parent.appendChild(e);
  return e;
}

class CanvasChart {
  constructor(root, kind) {
    this.box = el("div", `lab-chart ${kind}`, root);
    this.title = el("div", "lab-chart-title", this.box);
    this.legend = el("div", "lab-chart-legend", this.box);
    this.stage = el("div", "lab-chart-stage", this.box);
    this.canvas = el("canvas", "lab-chart-canvas", this.stage);
    this.tip = el("div", "lab-chart-tip", this.stage);
    this.data = null;
    this.canvas.addEventListener("mousemove", (e) => this.hover(e));
    this.canvas.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
  }

  update(data) {
    if (this.data && this.data.sig === data.sig) return;
    this.data = data;
    this.title.textContent = data.title || "";
    this.title.style.display = data.title ? "" : "none";
    this.legend.replaceChildren();
    this.fillLegend(data);
    this.legend.style.display = this.legend.childElementCount ? "" : "none";
    if (data.chartId) chartRegistry[data.chartId] = this;
    this.draw();
  }

  fillLegend() {}  // a chart that names its parts adds legendKey()s here

  // One legend entry: a swatch (a class of chart.css: "lab-chart-dash", "-dot" or "-rule") in `colour`.
  legendKey(swatch, colour, text) {
    const item = el("span", "lab-chart-key", this.legend);
    const s = el("span", swatch, item);
    if (swatch === "lab-chart-rule") s.style.borderTopColor = colour; else s.style.background = colour;
    el("span", "", item).textContent = text;
  }

  // The canvas sized to the box (its height the chart's, less the title and legend), cleared: [ctx, w, h].
  sized(height, minW, minH) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(minW, this.box.clientWidth || 400);
    const h = Math.max(minH, height - (this.data.title ? 26 : 0) - (this.legend.childElementCount ? 22 : 0));
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
    this.tip.replaceChildren();
    el("div", "lab-chart-tip-head", this.tip).textContent = head;
    for (const line of lines) el("div", "", this.tip).textContent = line;
    this.tip.style.display = "block";
    const x = Math.min(e.clientX - r.left + 12, r.width - this.tip.offsetWidth - 4);
    this.tip.style.left = `${Math.max(0, x)}px`; this.tip.style.top = `${Math.max(0, e.clientY - r.top - 40)}px`;
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
  }
  if (data) chart.update(data);
  return () => setTimeout(() => {
    if (parentElement.isConnected || parentElement[slot] !== chart) return;
    chart.ro.disconnect();
    if (chart.data && chartRegistry[chart.data.chartId] === chart) delete chartRegistry[chart.data.chartId];
    delete parentElement[slot];
  }, 0);
}
