"""Generate the states of a page to render: its data sets, then every control at its ends.

The sweep reads the widgets off the rendered page, so a new control or data set
is covered without editing a test. Each state starts from the page's default
state: set one widget, run, check, then set it back.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field

from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1.element_tree import Radio, Selectbox

from app.ui.layout import GROUPS
from tests.app.uploads import HTML_TELLS, MARKDOWN_TELLS

#: Widget types the sweep turns, and the values it tries.
SWEPT = ("slider", "number_input", "select_slider", "radio", "selectbox", "checkbox", "toggle")
#: Messages that are Python's or a library's, not ours: they tell a person nothing they can act on.
INTERNAL = re.compile(
    r"Traceback|cannot reshape|index \d+ is out of bounds|list index out of range|object has no attribute|"
    r"unsupported operand|NoneType|could not broadcast|eigenvectors of a|Expected n_neighbors|"
    r"perplexity must be|LinAlgError|array must not contain|Input contains|invalid value encountered|"
    r"min_value|max_value|StreamlitAPIException|KeyError|ValueError|TypeError|IndexError",
)
#: Long option lists (word pickers, song pickers) are tried at their first, middle and last option.
MAX_EACH = 8


def _forced_widget_state(original):
    """Radio and selectbox states from an option index, bypassing ``format_func``.

    AppTest formats a value through the widget's ``format_func`` to find its
    index, which fails for values it cannot format; the browser sends the index
    of the option shown, and so does this.
    """

    def state(self):
        forced = self.__dict__.get("_forced_index")
        if forced is None:
            return original.fget(self)
        ws = WidgetState()  # what the browser sends: the id and the option shown
        ws.id = self.id
        ws.string_value = self.options[forced]
        return ws

    return property(state)


for _cls in (Radio, Selectbox):
    if not getattr(_cls, "_sweep_patched", False):
        _cls._widget_state = _forced_widget_state(_cls._widget_state)
        _cls._sweep_patched = True


#: Elements whose text Streamlit renders as Markdown: their value, label or options.
_MARKDOWN_ELEMENTS = ("markdown", "caption", "title", "header", "subheader", "info", "warning", "error",
                      "success", "exception", "metric", "tab", "expander", "latex")
_LABELLED = SWEPT + ("button", "download_button", "multiselect", "text_input", "file_uploader", "metric")


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)


def rendered_markup(at) -> list[str]:
    """Upload text that the page would render as Markdown or as chart HTML instead of showing it."""
    found = []
    texts = []
    for kind in _MARKDOWN_ELEMENTS:
        for el in at.get(kind):
            texts += [getattr(el, a, None) for a in ("value", "label", "body")]
    for kind in _LABELLED:
        for el in at.get(kind):
            texts.append(getattr(el, "label", None))
            if kind == "radio":
                texts += list(el.options)
    for t in texts:
        if isinstance(t, str):
            found += [f"markdown {tell!r} in {t[:120]!r}" for tell in MARKDOWN_TELLS if tell in t]
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        for t in _strings(spec):
            found += [f"chart HTML {tell!r} in {t[:120]!r}" for tell in HTML_TELLS if tell in t]
    return found


def widget_id(w) -> str:
    return w.key or w.id


def _values(kind: str, w) -> list:
    """The values to try for one widget: its ends, or each option (first/middle/last when many)."""
    if kind in ("slider", "number_input"):
        lo, hi = w.min, w.max
        if isinstance(w.value, (tuple, list)):
            return [] if lo is None or hi is None else [("range", (lo, lo)), ("range", (hi, hi))]
        out = [v for v in (lo, hi) if v is not None and v != w.value and abs(v) < 1e15]
        if isinstance(w.value, int) and not isinstance(w.value, bool):
            out = [int(v) for v in out]
        return [("value", v) for v in out]
    if kind == "select_slider":
        opts = list(w.options)
        idx = range(len(opts)) if len(opts) <= MAX_EACH else sorted({0, len(opts) // 2, len(opts) - 1})
        return [("select_slider", opts[i]) for i in idx if opts[i] != str(w.value)]
    if kind in ("radio", "selectbox"):
        opts = list(w.options)
        cur = _index(w) if not getattr(w, "_forced_index", None) else None
        idx = range(len(opts)) if len(opts) <= MAX_EACH else sorted({0, len(opts) // 2, len(opts) - 1})
        return [("index", i) for i in idx if i != cur]
    if kind in ("checkbox", "toggle"):
        return [("value", not w.value)]
    return []


def _index(w):
    """The option index a radio or select box shows: the one the sweep forced, else AppTest's (None when
    AppTest cannot map the value back through the widget's format_func)."""
    forced = w.__dict__.get("_forced_index")
    if forced is not None:
        return forced
    try:
        return w.index
    except ValueError:
        return None


def _apply(w, how, v):
    if how == "index":
        w.__dict__["_forced_index"] = v
        w._value = w.options[v]
    elif how == "select_slider":
        # the shown option string; the widget's serde maps it back to the raw value
        w._value = v
    elif how == "range":
        w.set_value(v)
    else:
        w.set_value(v)


def find(at, kind: str, wid: str):
    for w in at.get(kind):
        if widget_id(w) == wid:
            return w
    return None


@dataclass
class Sweep:
    """Runs states on an AppTest and collects what went wrong in each."""

    at: object
    label: str
    failures: list[str] = field(default_factory=list)
    states: int = 0
    seconds: float = 0.0
    #: each lazy tab's widget signature on the default data: (group key, label) -> signature
    tab_signatures: dict = field(default_factory=dict)

    def check(self, state: str) -> None:
        self.states += 1
        at = self.at
        problems = [f"exception: {e.value}"[:400] for e in at.exception]
        problems += rendered_markup(at)[:5]
        for box in list(at.error) + list(at.warning):
            if INTERNAL.search(box.value):
                problems.append(f"internal message shown: {box.value[:300]}")
        if problems:
            self.failures.append(f"[{self.label} | {state}] " + " ; ".join(problems))

    def run(self, state: str) -> None:
        t0 = time.perf_counter()
        try:
            self.at.run()
        except Exception as err:  # AppTest itself failed to serialise or time out
            self.failures.append(f"[{self.label} | {state}] run failed: {type(err).__name__}: {err}"[:400])
            return
        finally:
            self.seconds += time.perf_counter() - t0
        self.check(state)

    def widgets(self, skip=()) -> list[tuple[str, str]]:
        out = []
        for kind in SWEPT:
            for w in self.at.get(kind):
                wid = widget_id(w)
                if wid in skip or getattr(w, "disabled", False):
                    continue
                out.append((kind, wid))
        return out

    def signature(self, skip=()) -> dict[str, tuple]:
        """Each widget's range or options: what a data set can change about a control."""
        out = {}
        for kind, wid in self.widgets(skip):
            w = find(self.at, kind, wid)
            out[wid] = (kind, getattr(w, "min", None), getattr(w, "max", None),
                        tuple(getattr(w, "options", None) or ()))
        return out

    def turn_each(self, skip=(), depth: int = 1, only=None) -> None:
        """Every widget to each of its values, one at a time, back to default in between.

        ``only``: the ids of the widgets to turn (all when None); others still count as known.
        """
        base = self.widgets(skip)
        for kind, wid in base:
            if only is not None and wid not in only:
                continue
            w = find(self.at, kind, wid)
            if w is None:
                continue
            for how, v in _values(kind, w):
                w = find(self.at, kind, wid)
                if w is None:
                    break
                default = w.value
                default_index = _index(w) if kind in ("radio", "selectbox") else None
                _apply(w, how, v)
                self.run(f"{wid}={v!r}")
                if depth > 0:
                    known = {i for _, i in base} | set(skip)
                    new = [(k, i) for k, i in self.widgets(skip) if i not in known]
                    for nk, nid in new:
                        nw = find(self.at, nk, nid)
                        for nhow, nv in _values(nk, nw):
                            nw = find(self.at, nk, nid)
                            if nw is None:
                                break
                            _apply(nw, nhow, nv)
                            self.run(f"{wid}={v!r}, {nid}={nv!r}")
                w = find(self.at, kind, wid)
                if w is None:
                    continue
                if kind in ("radio", "selectbox") and default_index is not None:
                    _apply(w, "index", default_index)
                else:
                    w.__dict__.pop("_forced_index", None)
                    w.set_value(default)
                self.run(f"{wid} back to default")

    def visit_tabs(self, prefix: str, skip=(), depth: int = 1, compare: bool = False) -> None:
        """Open every other tab of the page's lazy tab groups and turn the controls drawn there.

        Hidden tabs run nothing, so their controls only exist once opened. With
        ``compare``, only the controls whose range or options differ from the
        default data's are turned (the others were turned there).
        """
        at = self.at
        outside = {wid for _, wid in self.widgets(skip)}
        for key, labels in list(GROUPS.items()):
            if not key.startswith(prefix + ".") or key not in at.session_state:
                continue
            first = at.session_state[key]
            for label in labels:
                if label != first:
                    at.session_state[key] = label
                    self.run(f"tab {label}")
                mine = {wid: sig for wid, sig in self.signature(skip).items() if wid not in outside or label == first}
                if label == first:
                    continue  # the open tab's controls were turned with the page's
                base = self.tab_signatures.setdefault((key, label), mine) if not compare else \
                    self.tab_signatures.get((key, label), {})
                only = set(mine) if not compare else {w for w, sig in mine.items() if base.get(w) != sig}
                if only:
                    self.turn_each(skip=set(skip) | outside, depth=depth, only=only)
            at.session_state[key] = first
            self.run(f"tab {first} again")
