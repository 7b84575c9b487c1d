// The lab's bar chart: a few bars on a plain canvas, redrawn in place when a control changes them,
// with a linear or log value axis, value labels, category labels that never overlap, and a tooltip.
// The arrows walk the bars (an outline marks the one reached, its tooltip shows and its value is announced: the
// stage's keydown and its aria-label and description are set up in ../chart/chart.js with ../access/access.js);
// T shows them as a table. The pure parts live in logic.js, the DOM it shares with the line chart in
// ../chart/chart.js (both inlined above this file by app/ui/canvas.py).


const BAR_KEYS = "Keys: Left and Right arrows move from bar to bar, Home and End go to the first and the last, " +
  "T shows the bars as a table.";

// White stripes across a bar (x, y, w, h), 45 degrees, 6 px apart: the highlight's second channel.
function hatch(ctx, [x, y, w, h]) {
  ctx.save();
  ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip();
  ctx.strokeStyle = "rgba(255,255,255,0.75)"; ctx.lineWidth = 1.5;
  ctx.beginPath();
  for (let t = -h; t < w; t += 6) { ctx.moveTo(x + t, y + h); ctx.lineTo(x + t + h, y); }
  ctx.stroke();
  ctx.restore();
}

class LabBars extends CanvasChart {
  constructor(root) {
    super(root, "lab-bars", { kind: "bar chart", keys: BAR_KEYS });
    this.slots = [];
    this.drawn = [];
    this.kfocus = -1;  // the bar the keys reached (-1: none yet)
  }

  about(d) { return { name: barsName(d), text: describeBars(d) }; }

  tableRows() { return barsTable(this.data); }

  refocus(d) { if (this.kfocus >= d.labels.length) this.kfocus = -1; }

  onKey(ev) {
    const next = barStep(this.kfocus, this.data.labels.length, ev.key);
    if (next < 0) return false;
    this.kfocus = next;
    this.draw();
    this.showFocus();
    this.access.announce(barSpoken(this.data, next));
    return true;
  }

  // the tooltip of the bar the keys reached, over its top
  showFocus() {
    const b = this.drawn[this.kfocus];
    if (!b) return;
    const d = this.data;
    this.placeTip(b.x + b.w, b.y, `${d.labels[b.i]}: ${barValue(d, b.i)}`,
                  (d.hover || []).map((f) => `${f.name}: ${f.values[b.i]}`));
  }

  // with ruleLegend, the reference lines are named in a row above the chart instead of on it
  fillLegend(data) {
    for (const r of data.ruleLegend ? data.rules || [] : []) this.legendKey("lab-chart-rule", r.color || "#495057", r.label);
  }

  draw() {
    const d = this.data;
    const [ctx, w, h] = this.sized(d.height || 320, 120, 80);
    const values = d.values.map((v) => (v === null ? NaN : v));
    const rules = d.rules || [];
    const axis = d.logY ? logAxis(values) : linearAxis([...values, ...rules.map((r) => r.y)]);
    ctx.font = CHART_FONT;
    const tickTexts = axis.ticks.map((t) => tickText(axis, t));
    const tickW = tickTexts.reduce((m, t) => Math.max(m, ctx.measureText(t).width), 0);
    const k = CHART_SCALE, left = (d.yTitle ? 18 * k : 0) + tickW + 10, right = 8, top = 16 * k, bottom = 22 * k;
    const plotW = Math.max(20, w - left - right), plotH = Math.max(20, h - top - bottom);
    const yOf = (v) => top + plotH * (1 - fraction(axis, v));
    // grid and tick text
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    axis.ticks.forEach((t, k) => {
      const y = yOf(t);
      ctx.strokeStyle = t === 0 && !axis.log ? "#868e96" : "#e9ecef"; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(left, Math.round(y) + 0.5); ctx.lineTo(left + plotW, Math.round(y) + 0.5); ctx.stroke();
      ctx.fillStyle = "#495057"; ctx.fillText(tickTexts[k], left - 6, y);
    });
    if (d.yTitle) {
      ctx.save(); ctx.translate(11, top + plotH / 2); ctx.rotate(-Math.PI / 2);
      ctx.textAlign = "center"; ctx.fillStyle = "#495057"; ctx.fillText(d.yTitle, 0, 0); ctx.restore();
    }
    // bars, from 0 (or a log axis's bottom) to each value
    this.slots = barSlots(values.length, left, plotW);
    const base = axis.log ? top + plotH : yOf(0);
    this.drawn = [];
    const marked = new Set(highlighted(d.colors));
    values.forEach((v, i) => {
      const s = this.slots[i];
      const y = Number.isFinite(v) ? yOf(v) : base;
      ctx.fillStyle = (d.colors && d.colors[i]) || "#3b5bdb";
      const bar = [s.x - s.w / 2, Math.min(y, base), s.w, Math.max(Math.abs(base - y), Number.isFinite(v) ? 1 : 0)];
      ctx.fillRect(...bar);
      if (marked.has(i)) hatch(ctx, bar);  // a highlighted bar differs by a pattern as well as its colour
      this.drawn.push({ i, x: s.x - s.w / 2, y: Math.min(y, base), w: s.w, h: Math.abs(base - y) });
    });
    // reference lines across the plot (a threshold), dotted, their label at the left end
    ctx.save(); ctx.setLineDash([4, 3]); ctx.strokeStyle = "#495057"; ctx.lineWidth = 1.2;
    ctx.font = typeFont(11, CHART_SCALE); ctx.fillStyle = "#495057"; ctx.textAlign = "left"; ctx.textBaseline = "bottom";
    rules.forEach((r, k) => {  // labels alternate between the left and the right end, so near lines' stay apart
      const y = Math.round(yOf(r.y)) + 0.5;
      ctx.strokeStyle = ctx.fillStyle = r.color || "#495057";
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(left + plotW, y); ctx.stroke();
      ctx.textAlign = k % 2 ? "right" : "left";
      if (r.label && !d.ruleLegend) ctx.fillText(r.label, k % 2 ? left + plotW - 4 : left + 4, y - 2);
    });
    ctx.restore();
    // value text over (or under) each bar, when every one fits its slot
    const texts = d.text || [];
    ctx.font = typeFont(11, CHART_SCALE);
    const fits = texts.length && texts.every((t) => ctx.measureText(t).width <= (this.slots[0]?.slot ?? 0) - 2);
    this.valuesShown = !!fits;
    if (fits) {
      ctx.textAlign = "center"; ctx.fillStyle = "#212529";
      values.forEach((v, i) => {
        if (!Number.isFinite(v)) return;
        const below = !axis.log && v < 0;
        ctx.textBaseline = below ? "top" : "bottom";
        ctx.fillText(texts[i], this.slots[i].x, yOf(v) + (below ? 2 : -2));
      });
    }
    // category labels: every k-th, so none overlaps the next
    ctx.font = CHART_FONT; ctx.fillStyle = "#31333f"; ctx.textAlign = "center"; ctx.textBaseline = "top";
    const labels = d.labels || [];
    const every = labelEvery(labels.map((t) => ctx.measureText(t).width), this.slots[0]?.slot ?? 1);
    this.labelBoxes = [];
    labels.forEach((t, i) => {
      if (i % every) return;
      ctx.fillText(t, this.slots[i].x, top + plotH + 5);
      const tw = ctx.measureText(t).width;
      this.labelBoxes.push({ i, text: t, box: [this.slots[i].x - tw / 2, top + plotH + 5, tw, 14] });
    });
    ctx.strokeStyle = "#868e96"; ctx.beginPath();
    ctx.moveTo(left, Math.round(top + plotH) + 0.5); ctx.lineTo(left + plotW, Math.round(top + plotH) + 0.5); ctx.stroke();
    const b = this.drawn[this.kfocus];
    if (b && this.hasFocus) {  // the bar the keys reached, outlined (a bar with no height gets a small box)
      const hh = Math.max(b.h, 4), y = b.h < 4 ? b.y - 2 : b.y;
      focusStroke(ctx, () => { ctx.beginPath(); ctx.rect(b.x - 3, y - 3, b.w + 6, hh + 6); });
    }
    this.draws = (this.draws || 0) + 1;
  }

  hover(e) {
    const d = this.data;
    if (!d) return;
    const i = barAt(this.slots, e.clientX - this.canvas.getBoundingClientRect().left);
    if (i < 0) { this.hideTip(); return; }
    this.showTip(e, `${d.labels[i]}: ${barValue(d, i)}`, (d.hover || []).map((f) => `${f.name}: ${f.values[i]}`));
  }

  // for tests: the bars and category labels as drawn, in canvas pixels; the bar the keys reached; what a screen
  // reader is given
  state() {
    return { bars: this.drawn, labels: this.labelBoxes, valuesShown: this.valuesShown, draws: this.draws,
             canvas: this.canvas.getBoundingClientRect().toJSON(), focused: this.kfocus, access: this.access.state() };
  }
}

export default function (component) {
  return mountChart(component, LabBars, "__labBars");
}
