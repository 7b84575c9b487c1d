// The DOM every canvas component of the lab shares for keyboard and screen-reader users (inlined by
// app/ui/canvas.py after the components' logic): the canvas' stage becomes a focusable, named region whose
// description (written from the data by the component) sits in a visually hidden live region; a second live
// region announces what the keys reach; a "Table" button (or the T key) opens the data as an HTML table,
// paged for big maps. Whether the reader asked for less motion is read here too.

const TABLE_ROWS = 50;  // rows a table view shows at a time
const DESCRIBE_EVERY = 3000;  // ms between two descriptions of streaming data
let accessCount = 0;

function accessNode(tag, cls, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (parent) parent.appendChild(e);
  return e;
}

// Whether the reader's system asks for less motion (then glides and live frames jump).
function reducedMotion() {
  return !!(globalThis.matchMedia && globalThis.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

class LabAccess {
  // `box`: the component's root; `target`: the element that takes the focus (the canvas' stage); `kind`: what a
  // screen reader calls it ("map", "bar chart"); `keys`: a sentence on the keys it answers; `tools`: where the
  // Table button goes (default: a row of its own above `target`).
  constructor(box, target, { kind, keys, tools = null }) {
    const id = `lab-access-${++accessCount}`;
    this.target = target;
    target.tabIndex = 0;
    target.setAttribute("role", "application");
    target.setAttribute("aria-roledescription", kind);
    this.desc = accessNode("div", "lab-sr", box);
    this.desc.id = `${id}-about`;
    this.desc.setAttribute("aria-live", "polite");
    this.keys = accessNode("div", "lab-sr", box);
    this.keys.id = `${id}-keys`;
    this.keys.textContent = keys;
    target.setAttribute("aria-describedby", `${this.desc.id} ${this.keys.id}`);
    this.said = accessNode("div", "lab-sr lab-said", box);
    this.said.setAttribute("aria-live", "polite");
    this.said.setAttribute("aria-atomic", "true");
    this.tableBtn = accessNode("button", "lab-btn lab-table-btn", tools || box.insertBefore(accessNode("div", "lab-access-tools"), target));
    this.tableBtn.type = "button";
    this.tableBtn.textContent = "Table";
    this.tableBtn.title = "Show the data as a table (or press T on the chart)";
    this.tableBtn.setAttribute("aria-expanded", "false");
    this.table = accessNode("div", "lab-table", box);
    this.table.id = `${id}-table`;
    this.table.hidden = true;
    this.tableBtn.setAttribute("aria-controls", this.table.id);
    this.tableBtn.onclick = () => this.toggleTable(false);
    this.source = null;
    this.tablePage = 0;
  }

  // The accessible name (the chart's title) and the description of what it draws. The description is a live
  // region: while new data streams in (a live t-SNE's frames) it is rewritten at most every DESCRIBE_EVERY ms, so
  // a screen reader is not read a new sentence for every frame; the last data's description always lands.
  describe(name, text) {
    const label = String(name || "").replace(/\s*\n\s*/g, " · ");
    if (this.target.getAttribute("aria-label") !== label) this.target.setAttribute("aria-label", label);
    this.tableName = `Table: ${label}`;
    clearTimeout(this.describing);
    if (this.desc.textContent === text) return;
    const wait = (this.describedAt ?? -Infinity) + DESCRIBE_EVERY - performance.now();
    const put = () => { this.desc.textContent = text; this.describedAt = performance.now(); };
    if (wait <= 0) put(); else this.describing = setTimeout(put, wait);
  }

  // The keys every component shares: T opens or closes the table. True when `ev` was one of them (handled here);
  // a key with Alt, Ctrl or Meta is the browser's and counts as handled, so that the component leaves it alone.
  sharedKey(ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return true;
    if (ev.key !== "t" && ev.key !== "T") return false;
    ev.preventDefault();
    this.toggleTable(true);
    return true;
  }

  // For tests: what a screen reader is given (role, name, description, the last announcement) and whether the
  // table is open.
  state() {
    return { role: this.target.getAttribute("role"), name: this.target.getAttribute("aria-label"),
             description: this.desc.textContent, said: this.said.textContent, table: !this.table.hidden };
  }

  // Say `text` now (the point or bar the keys reached).
  announce(text) {
    this.said.textContent = text;
  }

  // What the table view shows: `source()` returns {columns, n, row(k) -> cells} (read when the table is drawn).
  tableFrom(source) {
    this.source = source;
    if (!this.table.hidden) this.drawTable();
  }

  toggleTable(focus = true) {
    this.table.hidden = !this.table.hidden;
    this.tableBtn.setAttribute("aria-expanded", String(!this.table.hidden));
    this.tableBtn.textContent = this.table.hidden ? "Table" : "Hide table";
    if (this.table.hidden) { this.table.replaceChildren(); return; }
    this.tablePage = 0;
    this.drawTable();
    if (focus) this.table.querySelector(".lab-table-scroll").focus();
  }

  drawTable() {
    const t = this.source ? this.source() : { columns: [], n: 0, row: () => [] };
    const p = pageOf(t.n, TABLE_ROWS, this.tablePage);
    this.tablePage = p.at;
    this.table.replaceChildren();
    // the table scrolls in its own box, which the keys can reach and scroll (a named region)
    const scroll = accessNode("div", "lab-table-scroll", this.table);
    scroll.tabIndex = 0;
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-label", this.tableName || "Table");
    const table = accessNode("table", null, scroll);
    accessNode("caption", null, table).textContent =
      `${this.target.getAttribute("aria-label") || "Data"}: ${t.n > TABLE_ROWS ? `rows ${p.start + 1} to ${p.end} of ` : ""}${counted(t.n, "row")}`;
    const head = accessNode("tr", null, accessNode("thead", null, table));
    for (const c of t.columns) {
      const th = accessNode("th", null, head);
      th.scope = "col";
      th.textContent = c;
    }
    const body = accessNode("tbody", null, table);
    for (let k = p.start; k < p.end; k++) {
      const tr = accessNode("tr", null, body);
      t.row(k).forEach((cell, j) => {
        const td = accessNode(j ? "td" : "th", null, tr);
        if (!j) td.scope = "row";
        td.textContent = cell == null ? "" : String(cell);
      });
    }
    if (p.pages > 1) {
      const pager = accessNode("div", "lab-table-pager", this.table);
      const prev = accessNode("button", "lab-btn", pager), next = accessNode("button", "lab-btn", pager);
      prev.type = next.type = "button";
      prev.textContent = `Previous ${TABLE_ROWS}`;
      next.textContent = `Next ${TABLE_ROWS}`;
      prev.disabled = p.at === 0;
      next.disabled = p.at === p.pages - 1;
      const where = accessNode("span", "lab-table-where", pager);
      where.textContent = `page ${p.at + 1} of ${p.pages}`;
      pager.insertBefore(where, next);
      // the focus stays on the button pressed, or goes to the table when that button has run out of pages
      const turn = (by, which) => {
        this.tablePage += by;
        this.drawTable();
        const again = this.table.querySelector(`.lab-table-pager button:${which}-child`);
        (again && !again.disabled ? again : this.table.querySelector(".lab-table-scroll")).focus();
      };
      prev.onclick = () => turn(-1, "first");
      next.onclick = () => turn(1, "last");
    }
  }
}
