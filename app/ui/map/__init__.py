"""The lab's map: one function, :func:`draw`, puts every embedding map of the lab on the page.

A Streamlit component (Components v2, no iframe) draws the points on a plain 2-D canvas in
the browser (``map.js`` on top of the pure ``logic.js``, both shipped in this folder and sent
inline, no build step). Coordinates travel as base64 float32, 8 bytes a point; a long array travels once and is
named by its digest while the browser holds it (:data:`BLOB_CHARS`). It draws:

* points coloured by a category (:func:`categories`; a legend whose entries hide and show
  them), by a continuous value (:func:`continuous`; a colour bar), or in one colour; sized and
  faded as asked;
* labels placed without overlap, most important first (``label_priority``), more as one zooms;
  ``always_label``, the selection and the hovered point are always labelled, at 12 px;
* layers from the same call: :func:`ring` (the selection, neighbours, a highlighted item),
  :func:`contours` (lines of equal density under the points),
  :func:`edges` (a graph's edges, cut edges, the kNN graph), :func:`arrows` (a playlist, next-song
  probabilities), :func:`line` (a hyperplane a x + b y = c) and :func:`markers` (points that are
  not items: tag positions, an exit point);
* one scale on both axes, always; a scale bar in data units;
* a tooltip with the label and the page's own fields; pan, wheel zoom, double-click to reset;
  a PNG of the view.

It answers box, lasso and click selections as point indices (the ``on_select`` callback gets
``{"kind": "box" | "lasso" | "click" | "clear", "indices": [...]}``).

It moves: a map drawn again under the same ``key`` with new coordinates is first aligned to
the one on screen (:func:`app.services.maps.aligned`: rotation, reflection, scale and shift
fitted on the items both hold), then the browser glides each point to its new place. The
sidebar's "Align redrawn maps" switch turns the alignment off. A live optimisation sends its
frames to the same element, which updates in place.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from app.services.maps import ALIGN_KEY, aligned, forget  # noqa: F401  (ALIGN_KEY, forget: re-exported)
from app.ui import canvas, palette
from app.ui.layout import main_height

HERE = Path(__file__).parent
PALETTE = palette.PALETTE


_COMPONENT = canvas.component("embedding_lab.map", HERE, "map.js", "map.css")


def b64(values, dtype=np.float32) -> str:
    """Little-endian bytes of ``values`` as ``dtype``, in base64 (what logic.js's ``decode`` reads)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype=np.dtype(dtype).newbyteorder("<")).tobytes()).decode()


# ------------------------------------------------------------ colours
def categories(values, *, names=None, colors=None, title: str | None = None, marks=True) -> dict:
    """Colour by category: ``values`` are the categories of the points (any hashable values, or codes
    into ``names``). The legend lists them in ``names`` order (default: sorted). With ``marks`` each category
    also has its own shape (circle, square, triangle, diamond, plus, cross, in turn), so that colour is not the
    only thing telling them apart; ``marks`` may also list each category's shape.

    No two entries of the legend look alike: the k-th category takes :func:`app.ui.palette.style`'s colour
    and mark (``colors``: the colours to take them from, the lab's palette by default). Past the pairs there
    are (72 with the palette's twelve colours and six marks), the largest categories keep their own and the
    rest are drawn as one last entry, "N others", in grey."""
    raw = values
    values = np.asarray(values, dtype=object)
    if names is None:
        uniq = list(dict.fromkeys(values.tolist()))
        try:
            uniq = sorted(uniq)
        except TypeError:
            pass
        names = uniq
    index = {v: k for k, v in enumerate(names)}
    if values.size and isinstance(raw, np.ndarray) and raw.dtype.kind in "iu" and not any(
            isinstance(v, (int, np.integer)) for v in names):  # codes into names, given as codes
        codes = raw.astype(np.int32)
    else:
        codes = np.fromiter((index.get(v, -1) for v in values), dtype=np.int32, count=len(values))
        if (codes < 0).any():  # codes given directly
            codes = values.astype(np.int64).astype(np.int32)
    names = [str(n) for n in names]
    colours = list(colors or PALETTE)
    if isinstance(marks, (list, tuple)):  # each category's shape given: its colour too, one per category
        styles = [(colours[k % len(colours)], str(marks[k % len(marks)])) for k in range(len(names))]
    else:
        styles = [palette.style(k, colours) if marks else (colours[k % len(colours)], "circle")
                  for k in range(len(names))]
        room = palette.distinct(colours, marked=bool(marks))
        if len(names) > room:
            counts = np.bincount(codes[(codes >= 0) & (codes < len(names))], minlength=len(names))
            keep = np.sort(np.argsort(-counts, kind="stable")[: room - 1])  # the largest, in the legend's order
            remap = np.full(len(names), room - 1, dtype=np.int32)
            remap[keep] = np.arange(room - 1, dtype=np.int32)
            inside = (codes >= 0) & (codes < len(names))
            codes = np.where(inside, remap[np.where(inside, codes, 0)], codes).astype(np.int32)
            names = [names[k] for k in keep] + [f"{len(names) - len(keep):,} others"]
            styles = styles[: room - 1] + [(palette.OTHER, "circle")]
    return {"kind": "category", "codes": b64(codes, np.int32), "names": names,
            "colors": [c for c, _ in styles], "title": title or "",
            "marks": [m for _, m in styles] if marks is not False and marks is not None else False}


def continuous(values, *, scale: str = "viridis", title: str = "", vmin=None, vmax=None) -> dict:
    """Colour by a number (NaN: grey), on ``scale`` (viridis, plasma, rdylgn, rdbu) from vmin to vmax."""
    v = np.asarray(values, dtype=np.float64)
    finite = v[np.isfinite(v)]
    lo = float(vmin if vmin is not None else (finite.min() if finite.size else 0.0))
    hi = float(vmax if vmax is not None else (finite.max() if finite.size else 1.0))
    return {"kind": "continuous", "values": b64(v), "scale": scale, "title": title, "min": lo, "max": hi}


def single(colour: str) -> dict:
    return {"kind": "single", "color": colour}


# ------------------------------------------------------------ layers
def ring(indices, *, name: str = "", color: str = "#212529", shape: str = "circle", size: float = 8,
         width: float = 1.5, label: bool = False, legend: bool = True, fill: bool = True) -> dict:
    """Marks over some points: ``shape`` circle (a ring), x, diamond, dot, square or star (``fill=False``:
    their outline only); ``label`` labels every marked point."""
    return {"indices": [int(i) for i in np.asarray(indices, dtype=np.int64).ravel()], "name": name, "color": color,
            "shape": shape, "size": size, "width": width, "label": label, "legend": legend, "fill": fill}


def edges(pairs, *, name: str = "", color: str = "rgba(120,120,120,0.35)", width: float = 1.0,
          dash: bool = False) -> dict:
    """Segments between points, as an (m, 2) array of point indices."""
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return {"pairs": b64(p.ravel(), np.int32), "name": name, "color": color, "width": width, "dash": dash}


def arrows(starts, ends, *, name: str = "", color: str = "#e8590c", width: float = 1.5, widths=None,
           alphas=None) -> dict:
    """Arrows from each start to its end: a point index, or an (x, y) pair in map units."""
    def where(p):
        return [float(p[0]), float(p[1])] if np.ndim(p) else int(p)

    out = {"from": [where(p) for p in starts], "to": [where(p) for p in ends], "name": name, "color": color,
           "width": width}
    if widths is not None:
        out["widths"] = [float(w) for w in widths]
    if alphas is not None:
        out["alphas"] = [float(a) for a in alphas]
    return out


def line(a: float, b: float, c: float, *, name: str = "", color: str = "#495057", width: float = 1.5,
         dash: bool = False, label: str = "") -> dict:
    """The line a x + b y = c across the whole view; ``name`` goes in the legend, ``label`` is written on the map
    beside the line."""
    return {"a": float(a), "b": float(b), "c": float(c), "name": name, "color": color, "width": width, "dash": dash,
            "label": label}


def markers(x, y, *, name: str = "", color: str = "#212529", shape: str = "dot", size: float = 6,
            text=None, legend: bool = True, groups=None, group_of=None) -> dict:
    """Points that are not items of the map (tag positions, an exit point), optionally with text. With ``groups``
    (one code per point of the map) and ``group_of`` (the code each marker stands for), a click on a marker or
    its text selects the points of its group (a cluster's name selects the cluster)."""
    out = {"x": [float(v) for v in np.ravel(x)], "y": [float(v) for v in np.ravel(y)], "name": name, "color": color,
           "shape": shape, "size": size, "text": None if text is None else [str(t) for t in text],
           "legend": legend}
    if groups is not None:
        out["selectCodes"], out["selectOf"] = b64(groups, np.int32), [int(c) for c in group_of]
    return out


def contours(paths, *, name: str = "", color: str = "rgba(33,37,41,0.45)", width: float = 1.0) -> dict:
    """Lines drawn under the points (lines of equal density): ``paths`` are (m, 2) arrays in map units."""
    paths = [np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in paths]
    starts = np.cumsum([0] + [len(p) for p in paths[:-1]]) if paths else np.zeros(0)
    xy = np.concatenate(paths).ravel() if paths else np.zeros(0)
    return {"xy": b64(xy), "starts": b64(starts, np.int32), "name": name, "color": color, "width": width}


# ------------------------------------------------------------ drawing
def are_rows(ids, n: int) -> bool:
    """Whether ``ids`` are the row numbers 0 .. n - 1 (then neither they nor their token need spelling out)."""
    if isinstance(ids, range):
        return ids == range(n)
    a = np.asarray(ids) if not isinstance(ids, np.ndarray) else ids
    if a.ndim != 1 or len(a) != n or a.dtype.kind not in "iuO" or (n and (a[0] != 0 or a[-1] != n - 1)):
        return False
    return bool(np.array_equal(a, np.arange(n)))  # object ids (MapTools keeps them so) compare one by one


def _hover_field(name, values) -> dict:
    """A tooltip field: text, one per point; real numbers sent as float32 bytes that the map writes with three
    significant digits (20,000 formatted strings cost more to make, send and read than the numbers); or, for a
    column of a few values repeated (a category), int32 codes into its names."""
    a = values if isinstance(values, np.ndarray) else None
    if a is not None and a.ndim == 1 and a.dtype.kind == "f":
        return {"name": str(name), "numbers": b64(a), "digits": 3}
    if len(values) >= 64 and len(set(_texts(values[:1024]))) <= 256:  # a few values repeated (a sample tells)
        # hashed as they are, not sorted nor first made text (a million rows: 35 ms against 150)
        codes, uniques = pd.factorize(np.asarray(values, dtype=object))
        if len(uniques) <= min(256, len(values) // 4):
            names = [str(v) for v in uniques]
            if (codes < 0).any():  # None and NaN: no value, written as nothing
                codes = np.where(codes < 0, len(names), codes)
                names.append("")
            return {"name": str(name), "codes": b64(codes, np.int32), "names": names}
    texts = _texts(values)
    return {"name": str(name), "values": texts}


def _texts(values) -> list[str]:
    """``values`` as text ("" for None), one per point."""
    return ["" if v is None else str(v) for v in values]


#: Points past which per-point text (labels, a text field of the tooltip) is sent for this many of them only: the
#: ones the map must name (search matches, the selection, ``always_label``), then the most important by
#: ``label_priority``, then a seeded sample. A million labels would be 15 MB on every run.
TEXT_POINTS = 20_000


def _text_rows(n: int, priority, musts) -> np.ndarray:
    """The rows (sorted) whose text is sent for a map of ``n`` points: every index in ``musts`` (lists, in order)
    while room lasts, then by ``priority`` (highest first) or a seeded sample."""
    chosen: dict[int, None] = {}
    for group in musts:
        for i in group:
            if len(chosen) >= TEXT_POINTS:
                break
            if 0 <= int(i) < n:
                chosen[int(i)] = None
    room = TEXT_POINTS - len(chosen)
    if room > 0:
        if priority is not None:
            order = np.argsort(-np.asarray(priority, dtype=np.float64), kind="stable")
        else:
            order = np.random.default_rng(0).permutation(n)
        taken = np.zeros(n, dtype=bool)
        taken[list(chosen)] = True
        chosen.update(dict.fromkeys(order[~taken[order]][:room].tolist()))
    return np.sort(np.fromiter(chosen, dtype=np.int64, count=len(chosen)))


def _some_texts(texts: list[str], rows: np.ndarray) -> dict:
    """Text for ``rows`` only, as the map reads it: the rows as int32 bytes and their texts."""
    return {"index": b64(rows, np.int32), "text": [texts[i] for i in rows]}


#: Base64 strings at least this long (a float32 array of 49,152 points and more) travel to a map once: a map
#: drawn again under its key sends the digest of each such string the browser already holds, and the browser takes
#: it from its store. A colour change on a million given points re-sent 16 MB of unchanged coordinates and codes.
BLOB_CHARS = 1 << 16 << 2
#: How many digests a map remembers sending in a session (the browser keeps more: map.js's BLOBS).
HELD = 16
#: Where the texts sent are kept by digest when something stands in for the browser (the tests' AppTest helpers);
#: None in the app.
TEXT_OF: dict | None = None
_HELD_KEY = "_lab_map_blobs"


def _held(key: str):
    """The digests the browser was sent whole for the map ``key`` in this session, oldest first."""
    from collections import OrderedDict

    store = st.session_state.setdefault(_HELD_KEY, {})
    return store.setdefault(key, OrderedDict())


def _by_reference(node, found: dict):
    """``node`` (the data, new containers, the same leaves) with every long base64 string as ``{"blob": digest}``;
    ``found`` gets each digest's text."""
    if isinstance(node, dict):
        return {k: _by_reference(v, found) for k, v in node.items()}
    if isinstance(node, list):
        return [_by_reference(v, found) for v in node]
    if isinstance(node, str) and len(node) >= BLOB_CHARS:
        digest = hashlib.sha1(node.encode("ascii", "replace")).hexdigest()[:24]
        found[digest] = node
        return {"blob": digest}
    return node


def _attach(node, send: dict):
    """Puts the text of each blob in ``send`` beside its digest (in place; the containers are _by_reference's)."""
    if isinstance(node, dict):
        if "blob" in node and node["blob"] in send and len(node) == 1:
            node["b64"] = send.pop(node["blob"])  # once: the browser keeps it for every other place it is used
            return
        for v in node.values():
            _attach(v, send)
    elif isinstance(node, list):
        for v in node:
            _attach(v, send)


def _forget_held(key: str) -> None:
    """The browser lacks a blob it was told it holds (its store let it go, or it skipped a run's data): everything
    goes whole on the next run."""
    st.session_state.get(_HELD_KEY, {}).pop(key, None)


_VIEWS_KEY = "_lab_map_views"


def _remember_view(key: str) -> None:
    """The view the map ``key`` rests on, as its browser said (``{"box": [x0, y0, x1, y1], "items": token}``):
    the next runs send text for the points in it first."""
    event = (st.session_state.get(key) or {}).get("view")
    if isinstance(event, dict) and isinstance(event.get("box"), list) and len(event["box"]) == 4:
        st.session_state.setdefault(_VIEWS_KEY, {})[key] = event


def _in_view(key: str, items: str, xy: np.ndarray, priority) -> list[int]:
    """The points inside the view the map ``key`` last rested on (for the same points), most important first."""
    event = st.session_state.get(_VIEWS_KEY, {}).get(key)
    if not event or event.get("items") != items or len(xy) == 0:
        return []
    try:
        x0, y0, x1, y1 = (float(v) for v in event["box"])
    except (TypeError, ValueError):
        return []
    inside = np.flatnonzero((xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1))
    if priority is not None and len(inside):
        inside = inside[np.argsort(-np.asarray(priority, dtype=np.float64)[inside], kind="stable")]
    return inside[:TEXT_POINTS].tolist()


def _items_token(ids) -> str:
    a = ids if isinstance(ids, np.ndarray) else None
    if a is not None and a.ndim == 1 and a.dtype.kind == "O" and len(a) > 1000:
        try:  # whole numbers (rows of a file): their bytes, not a million strings
            numbers = a.astype(np.int64)
            if np.array_equal(numbers, a):
                return "i:" + hashlib.sha1(numbers.tobytes()).hexdigest()[:16]
        except (TypeError, ValueError, OverflowError):
            pass
    h = hashlib.sha1()
    for v in ids:
        h.update(str(v).encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()[:16]


def draw(where, xy, *, key: str, ids=None, labels=None, label_priority=None, always_label=(), color=None,
         size=5.0, opacity: float = 0.85, hover: dict | None = None, rings=(), edges=(), arrows=(), lines=(),
         markers=(), contours=(), title: str = "", x_title: str = "", y_title: str = "", height: int = 480,
         mode: str = "pan", selected=(), align: bool = True, glide_ms: int = 400, on_select=None, focus=(),
         sweep: dict | None = None, shrink: bool = False):
    """Draw ``xy`` (n x 2) as a map in ``where`` (a container, a column, ``st.empty()``; None: here).

    ``ids`` name the points (kept to align and glide the next map drawn under ``key``; default: the
    row numbers); ``labels`` are drawn next to the points as room allows; ``hover`` maps a field name
    to one value per point, shown in the tooltip. ``mode`` is what a drag does: ``box``, ``lasso``,
    ``click`` (a click picks a point; drags pan) or ``pan``. ``selected`` are the indices ringed as
    the selection. ``on_select(event)`` is called with a selection made on the map. ``align`` aligns
    the map to the one last drawn under ``key``; ``glide_ms`` is how long points glide (0: jump). ``focus``
    names points the view frames (a search's matches); double-click shows the whole map again. ``sweep`` (``name``,
    ``values``, ``frames``: one (n, 2) map per value, each aligned to its neighbour, ``at``: the value this map is)
    puts a scrubber under the map that morphs between them in the browser. ``shrink`` lowers the box to the
    points' own shape when they are wider than it (a graph's layout), so they do not sit in its middle third.
    Returns the coordinates drawn (after alignment).
    """
    xy = np.asarray(xy, dtype=np.float64)
    n = len(xy)
    # a map drawn unaligned (a live frame, a map whose axes mean something) is not what the next is aligned to
    drawn = aligned(key, xy, ids) if align else xy
    labels_list = None if labels is None else _texts(labels)
    colour = color if isinstance(color, dict) else single(color or PALETTE[0])
    # a field that is the labels themselves (the same array) is sent once, as the labels
    hover_fields = [{"name": str(k), "values": None, "sameAs": "labels"} if labels is not None and vals is labels
                    else _hover_field(k, vals) for k, vals in (hover or {}).items()]
    for field in hover_fields:  # the colour's own numbers and the labels, sent once (each is a quarter of the data)
        if field.get("numbers") is not None and field["numbers"] == colour.get("values"):
            field["numbers"], field["sameAs"] = None, "color"
        if field.get("values") is not None and field["values"] == labels_list:
            field["values"], field["sameAs"] = None, "labels"
    rows = ids is None or are_rows(ids, n)
    items = f"rows:{n}" if rows else _items_token(ids)
    sel = sorted({int(i) for i in selected})
    if n > TEXT_POINTS and (labels_list is not None or any(f.get("values") is not None for f in hover_fields)):
        # text for the points the map names and the most important others; the rest show their number and the
        # tooltip's numbers and categories
        named = [list(always_label), *[r["indices"] for r in rings if r.get("label")], sorted(int(i) for i in focus),
                 sel, _in_view(key, items, drawn, label_priority)]
        text_rows = _text_rows(n, label_priority, named)
        if labels_list is not None:
            labels_list = _some_texts(labels_list, text_rows)
        for field in hover_fields:
            if field.get("values") is not None:
                field.update(_some_texts(field.pop("values"), text_rows))
                field["values"] = None
    ring_layers = list(rings)
    if sel:
        ring_layers.insert(0, ring(sel, name=f"selected ({len(sel):,})", color="rgba(33,37,41,0.85)", size=7.5,
                                   width=1.3))
    data = {
        "mapId": key, "n": n, "x": b64(drawn[:, 0] if n else []), "y": b64(drawn[:, 1] if n else []),
        "items": items,
        "ids": None if rows or n > 20000 else [str(v) for v in ids], "rowIds": rows and ids is not None,
        "labels": labels_list,
        "labelPriority": None if label_priority is None else b64(label_priority),
        "alwaysLabel": [int(i) for i in always_label],
        "color": colour,
        "size": float(size) if np.ndim(size) == 0 else b64(size), "opacity": float(opacity),
        "hover": {"fields": hover_fields}, "rings": ring_layers, "edges": list(edges), "arrows": list(arrows),
        "lines": list(lines), "markers": list(markers), "contours": list(contours), "title": title,
        "xTitle": x_title, "yTitle": y_title,
        "height": main_height(key, int(height)), "mode": mode, "selected": sel, "glideMs": int(glide_ms),
        "focus": sorted({int(i) for i in focus}) or None, "shrink": bool(shrink),
        "sweep": None if sweep is None else {
            "name": str(sweep["name"]), "values": [float(v) for v in sweep["values"]], "at": int(sweep["at"]),
            "x": [b64(np.asarray(f)[:, 0]) for f in sweep["frames"]],
            "y": [b64(np.asarray(f)[:, 1]) for f in sweep["frames"]]},
    }
    blobs: dict[str, str] = {}
    data = _by_reference(data, blobs)
    data["sig"] = canvas.signature(data, default=str)  # on the digests: cheap, and the same whole or by reference
    held = _held(key)
    send = {d: t for d, t in blobs.items() if d not in held}
    for d in blobs:
        held[d] = None
        held.move_to_end(d)
    while len(held) > HELD:
        held.popitem(last=False)
    _attach(data, send)
    if TEXT_OF is not None:
        TEXT_OF.update(blobs)

    def handle():
        event = (st.session_state.get(key) or {}).get("select")
        if on_select is not None and isinstance(event, dict):
            on_select(event)

    canvas.mount(_COMPONENT, where, key=key, data=data, on_select_change=handle,
                 on_missing_change=lambda: _forget_held(key), on_view_change=lambda: _remember_view(key))
    return drawn
