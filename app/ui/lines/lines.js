// The lab's line chart: a few curves on a plain canvas (log or linear axes, markers, dashed reference
// lines, a legend and a tooltip), drawn in a few milliseconds where Plotly first spends a third of a
// second starting its library. Left and Right walk the points of one curve, Up and Down switch curves (a ring
// marks the point reached, its tooltip shows and it is announced: the stage's keydown and its aria-label and
// description are set up in ../chart/chart.js with ../access/access.js); T shows every point in a table. The pure
// parts live in ../bars/logic.js and logic.js, the DOM it shares with the bar chart in ../chart/chart.js (all
// inlined above by app/ui/canvas.py).

const LINE_KEYS = "Keys: Left and Right arrows move along a line from point to point, Up and Down switch lines, " +
  "Home and End go to the line's first and last point, T shows the points as a table.";

function axisFor(values, log, zero) {
  if (log) return logAxis(values);
  if (zero) return linearAxis(values);
  let lo = Infinity, hi = -Infinity;
  for (const v of values) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  return lo === Infinity ? rangeAxis(0, 1) : rangeAxis(lo, hi);
}

class LabLines extends CanvasChart {
  constructor(root) {
    super(root, "lab-lines", { kind: "line chart", keys: LINE_KEYS });
    this.drawn = [];
    this.kfocus = null;  // the point the keys reached, {s, i} (series, index), or null
  }

  about(d) { return { name: linesName(d), text: describeLines(d) }; }

  tableRows() { return linesTable(this.data); }

  refocus(d) {
    const f = this.kfocus;
    if (f && !(f.s < d.series.length && f.i < d.series[f.s].x.length)) this.kfocus = null;
  }

  // curve k's points as the arrows walk them: those drawn, left to right
  walk(k) {
    const pts = this.drawn[k] || [];
    return walkOrder(pts.map((p) => p[0]), pts.map((p) => p[1]));
  }

  onKey(ev) {
    const d = this.data, k = ev.key, walks = d.series.map((_, j) => this.walk(j));
    const usable = walks.flatMap((w, j) => (w.length ? [j] : []));
    if (!usable.length || !["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(k)) return false;
    let f = this.kfocus && walks[this.kfocus.s] && walks[this.kfocus.s].includes(this.kfocus.i) ? this.kfocus : null;
    if (!f) {  // the first key lands on the first curve's first point (its last for Left and End)
      const w = walks[usable[0]];
      f = { s: usable[0], i: k === "ArrowLeft" || k === "End" ? w[w.length - 1] : w[0] };
    } else if (k === "ArrowUp" || k === "ArrowDown") {  // the next curve (Down) or the one before, at the nearest x
      const at = usable.indexOf(f.s), to = usable[(at + (k === "ArrowDown" ? 1 : usable.length - 1)) % usable.length];
      const w = walks[to];
      f = { s: to, i: w[nearestAlong(this.drawn[to].map((p) => p[0]), w, this.drawn[f.s][f.i][0])] };
    } else {
      const w = walks[f.s], p = w.indexOf(f.i);
      const q = k === "Home" ? 0 : k === "End" ? w.length - 1 : Math.max(0, Math.min(w.length - 1, p + (k === "ArrowRight" ? 1 : -1)));
      f = { s: f.s, i: w[q] };
    }
    this.kfocus = f;
    this.draw();
    this.showFocus();
    const w = walks[f.s];
    this.access.announce(lineSpoken(d, f.s, f.i, w.indexOf(f.i) + 1, w.length));
    return true;
  }

  // the tooltip of the point the keys reached, beside it
  showFocus() {
    const f = this.kfocus;
    if (!f || !this.drawn[f.s]) return;
    const [x, y] = this.drawn[f.s][f.i];
    if (Number.isFinite(x) && Number.isFinite(y)) this.tipFor(f.s, f.i, x, y);
  }

  tipFor(k, i, x, y) {
    const d = this.data, s = d.series[k];
    this.placeTip(x, y, s.text ? s.text[i] : s.name,
                  [...(s.text && s.name ? [s.name] : []),
                   `${d.xTitle || "x"}: ${fmt(s.x[i])} · ${d.yTitle || "y"}: ${fmt(s.y[i])}`]);
  }

  fillLegend(data) {
    for (const s of data.series) if (s.legend && s.name) this.legendKey(s.markers && !s.lines ? "lab-chart-dot" : "lab-chart-dash", s.color, s.name);
    for (const r of [...(data.vlines || []), ...(data.hlines || [])]) if (r.name) this.legendKey("lab-chart-rule", r.color, r.name);
  }

  draw() {
    const d = this.data;
    const [ctx, w, h] = this.sized(d.height || 340, 160, 100);
    const xs = d.series.flatMap((s) => s.x).concat((d.vlines || []).map((r) => r.x));
    const ys = d.series.flatMap((s) => s.y).concat((d.hlines || []).map((r) => r.y));
    const ax = axisFor(xs.map((v) => (v === null ? NaN : v)), d.logX, false);
    const ay = axisFor(ys.map((v) => (v === null ? NaN : v)), d.logY, d.yZero);
    ctx.font = CHART_FONT;
    const yTexts = ay.ticks.map((t) => tickText(ay, t)), xTexts = ax.ticks.map((t) => tickText(ax, t));
    const tickW = yTexts.reduce((m, t) => Math.max(m, ctx.measureText(t).width), 0);
    const k = CHART_SCALE;
    const left = (d.yTitle ? 18 * k : 0) + tickW + 10, right = 14, top = 10 * k, bottom = (22 + (d.xTitle ? 18 : 0)) * k;
    const plotW = Math.max(20, w - left - right), plotH = Math.max(20, h - top - bottom);
    const X = (v) => left + plotW * position(ax, v), Y = (v) => top + plotH * (1 - position(ay, v));
    this.frame = { left, top, plotW, plotH };
    // grid, tick text, axis titles
    ctx.lineWidth = 1; ctx.fillStyle = "#495057";
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    ay.ticks.forEach((t, k) => {
      const y = Math.round(Y(t)) + 0.5;
      ctx.strokeStyle = t === 0 && !ay.log ? "#868e96" : "#e9ecef";
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(left + plotW, y); ctx.stroke();
      ctx.fillText(yTexts[k], left - 6, y);
    });
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    let lastRight = -Infinity;
    ax.ticks.forEach((t, k) => {
      const x = Math.round(X(t)) + 0.5;
      ctx.strokeStyle = "#e9ecef";
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + plotH); ctx.stroke();
      const tw = ctx.measureText(xTexts[k]).width;
      if (x - tw / 2 > lastRight + 6) { ctx.fillText(xTexts[k], x, top + plotH + 5); lastRight = x + tw / 2; }
    });
    if (d.xTitle) ctx.fillText(d.xTitle, left + plotW / 2, top + plotH + 23);
    if (d.yTitle) {
      ctx.save(); ctx.translate(11, top + plotH / 2); ctx.rotate(-Math.PI / 2);
      ctx.textBaseline = "middle"; ctx.fillText(d.yTitle, 0, 0); ctx.restore();
    }
    ctx.strokeStyle = "#868e96";
    ctx.beginPath(); ctx.moveTo(left + 0.5, top); ctx.lineTo(left + 0.5, top + plotH + 0.5);
    ctx.lineTo(left + plotW, top + plotH + 0.5); ctx.stroke();
    // reference lines (a threshold, a chosen value), dashed, each labelled at its end
    ctx.save(); ctx.beginPath(); ctx.rect(left - 7, top - 7, plotW + 14, plotH + 14); ctx.clip();
    ctx.setLineDash([5, 4]); ctx.lineWidth = 1.5; ctx.textBaseline = "top";
    for (const r of d.vlines || []) {
      const x = Math.round(X(r.x)) + 0.5;
      ctx.strokeStyle = r.color; ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + plotH); ctx.stroke();
      if (r.label) { ctx.fillStyle = r.color; ctx.textAlign = x > left + plotW / 2 ? "right" : "left";
        ctx.fillText(r.label, x + (x > left + plotW / 2 ? -4 : 4), top + 2); }
    }
    ctx.textAlign = "left"; ctx.textBaseline = "bottom";
    for (const r of d.hlines || []) {
      const y = Math.round(Y(r.y)) + 0.5;
      ctx.strokeStyle = r.color; ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(left + plotW, y); ctx.stroke();
      if (r.label) { ctx.fillStyle = r.color; ctx.fillText(r.label, left + 4, y - 2); }
    }
    ctx.setLineDash([]);
    // the curves, then their markers
    this.drawn = d.series.map((s) => s.x.map((x, i) => {
      const y = s.y[i];
      return x === null || y === null ? [NaN, NaN] : [X(x), Y(y)];
    }));
    d.series.forEach((s, k) => {
      const pts = this.drawn[k];
      if (s.lines) {
        ctx.strokeStyle = s.color; ctx.lineWidth = s.width || 2; ctx.lineJoin = "round";
        ctx.beginPath();
        let open = false;
        for (const [x, y] of pts) {
          if (!Number.isFinite(x) || !Number.isFinite(y)) { open = false; continue; }
          if (open) ctx.lineTo(x, y); else { ctx.moveTo(x, y); open = true; }
        }
        ctx.stroke();
      }
      if (s.markers) {
        ctx.fillStyle = s.color; ctx.strokeStyle = "#ffffff"; ctx.lineWidth = 1;
        const r = (s.size || 6) / 2;
        for (const [x, y] of pts) {
          if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
          ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fill();
          if (r >= 4) ctx.stroke();
        }
      }
    });
    ctx.restore();
    const f = this.kfocus, at = f && this.drawn[f.s] ? this.drawn[f.s][f.i] : null;
    if (at && this.hasFocus && Number.isFinite(at[0]) && Number.isFinite(at[1])) {  // the point the keys reached
      const r = Math.max(7, (d.series[f.s].size || 6) / 2 + 4);
      focusStroke(ctx, () => { ctx.beginPath(); ctx.arc(at[0], at[1], r, 0, 2 * Math.PI); });
    }
    this.axes = { x: ax, y: ay };
    this.draws = (this.draws || 0) + 1;
  }

  hover(e) {
    const d = this.data;
    if (!d) return;
    const r = this.canvas.getBoundingClientRect();
    const hit = nearestPoint(this.drawn.map((pts, k) => (d.series[k].hover === false ? [] : pts)),
                             e.clientX - r.left, e.clientY - r.top);
    if (!hit) { this.hideTip(); return; }
    this.tipFor(hit.s, hit.i, e.clientX - r.left, e.clientY - r.top);
  }

  // for tests: the points as drawn (canvas pixels), the plot's frame and axes, how often it was drawn, the point
  // the keys reached and what a screen reader is given
  state() {
    return { points: this.drawn, frame: this.frame, axes: this.axes, draws: this.draws,
             legend: [...this.legend.querySelectorAll(".lab-chart-key")].map((k) => k.textContent),
             canvas: this.canvas.getBoundingClientRect().toJSON(), focused: this.kfocus, access: this.access.state() };
  }
}

export default function (component) {
  return mountChart(component, LabLines, "__labLines");
}
