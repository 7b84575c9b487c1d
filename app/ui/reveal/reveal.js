// Scrolls a tour step's figure whole into view under the tour's sticky bar (presentation mode), once per step.

const seen = (globalThis.__labRevealed = globalThis.__labRevealed || {});

// Every element matching `sel` under `root`, shadow roots included (the lab's canvas components draw in them).
function deep(root, sel, out = []) {
  out.push(...root.querySelectorAll(sel));
  for (const e of root.querySelectorAll("*")) if (e.shadowRoot) deep(e.shadowRoot, sel, out);
  return out;
}

// The figure: the first chart under `root` (a Plotly chart, or a whole canvas component: its host element, with
// title, drawing and legend) and the charts beside it in its row (a page's main picture can be two views).
function figureIn(root) {
  const figs = [];
  for (const e of deep(root, ".stPlotlyChart, canvas")) {
    const r = e.getBoundingClientRect();
    if (r.width < 50 || r.height < 50 || e.closest('[data-testid="stDataFrame"]')) continue;  // a table's grid
    const host = (e.getRootNode && e.getRootNode().host) || e;
    if (!figs.includes(host)) figs.push(host);
  }
  if (!figs.length) return null;
  figs.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);  // the page's order
  const first = figs[0].getBoundingClientRect();
  const row = figs.filter((f) => { const r = f.getBoundingClientRect(); return r.top < first.bottom && r.bottom > first.top; });
  return row.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
}

function union(figs) {
  const rs = figs.map((f) => f.getBoundingClientRect());
  return { top: Math.min(...rs.map((r) => r.top)), bottom: Math.max(...rs.map((r) => r.bottom)),
           height: Math.max(...rs.map((r) => r.bottom)) - Math.min(...rs.map((r) => r.top)) };
}

function target(tab) {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return null;
  if (tab) {
    const t = [...main.querySelectorAll('[role="tab"][aria-selected="true"]')].find((e) => e.innerText.trim() === tab);
    const panel = t && document.getElementById(t.getAttribute("aria-controls"));
    if (panel) return figureIn(panel);
  }
  return figureIn(main);
}

// The window's top that the figure must stay below: Streamlit's top bar and, once stuck, the tour's bar.
function topLimit() {
  const bar = document.querySelector('[data-testid="stMain"] [class*="st-key-lab_tour_"]');
  return 60 + (bar ? bar.getBoundingClientRect().height : 0) + 8;
}

function idle() {
  const app = document.querySelector('[data-testid="stApp"]');
  return !app || app.getAttribute("data-test-script-state") !== "running";
}

function reveal(data) {
  const started = performance.now();
  let last = null, still = 0, refitted = false;
  const tick = () => {
    if (seen[location.pathname] !== data.step) return;  // another step was asked for meanwhile
    const figs = idle() ? target(data.tab) : null;
    if (figs && !refitted) {
      // every fitted picture measures its room again now that all of them are drawn: a map drawn before the chart
      // beside it did not know where its row's top would be
      refitted = true;
      for (const redraw of [...(globalThis.__labFitted || [])]) { try { redraw(); } catch (err) { /* gone */ } }
    }
    if (figs) {
      const r = union(figs), fig = figs[0], now = `${Math.round(r.top)}|${Math.round(r.height)}`;
      still = now === last ? still + 1 : 0;
      last = now;
      if (still >= 2) {  // drawn and holding still
        const top = topLimit();
        if (r.top < top || r.bottom > innerHeight) {
          fig.style.scrollMarginTop = `${top}px`;
          fig.scrollIntoView({ block: "start", behavior: "instant" });
        }
        return;
      }
    }
    if (performance.now() - started < 20000) setTimeout(tick, 150);
  };
  setTimeout(tick, 150);
}

export default function ({ data }) {
  if (!data || seen[location.pathname] === data.step) return;
  seen[location.pathname] = data.step;
  reveal(data);
}
