"""Select, inspect, compare: one set of tools every map of the lab shares.

A page makes a :class:`MapTools` for its map (the items' ids and labels, the map's
coordinates and, for inspecting a point, the original space), draws the map
through :meth:`MapTools.draw` (the lab's map component, :mod:`app.ui.map`), and calls
:meth:`MapTools.panel` below it. The map then:

* selects with a box or a lasso (the "On the map" control sets what a drag does),
  rings the selection on every map of the page that draws the same items, and the
  panel lists what was selected with the page's own summary, a CSV download and a
  Clear button;
* inspects a clicked point: its k nearest neighbours in the original space next
  to its k nearest on the map, and the map marks which are in both;
* compares: Pin keeps the current map; after a setting changes, the panel shows
  each item's neighbour overlap at k between the pinned map and this one, the
  Procrustes disparity, and this map coloured by the overlap.

State lives in :mod:`app.services.selection`, keyed by the page and its data.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

from app.services import selection as sel
from app.ui import map as lab_map
from app.ui.controls import ranged_slider
from app.ui.text import md_escape

BOTH = "#2b8a3e"
DATA_ONLY = "#e03131"
MAP_ONLY = "#f08c00"
POINT = "#000000"


class MapTools:
    """Selection, inspection and comparison for one map of a page (see the module's docstring).

    ``page`` is the page's key prefix, ``data`` what identifies the items (a selection or a
    pin made on other data is dropped), ``ids`` the items' ids in map order, ``coords`` the
    map, ``labels`` what the table shows next to each id, ``space`` the original space
    (rows like ``coords``) for inspecting a point, or None; ``k`` fixes the number of
    neighbours compared (otherwise a slider sets it). ``name`` tells apart two maps of one
    page; they share the page's selection and pin. A map drawn in a fragment whose selection
    the page marks elsewhere too is ``linked`` (True, or a function asked when a selection is made):
    a selection made on it runs the whole page. A page that draws the map and what shows the selection
    in keyed fragments names them in ``fragments``: a box, a lasso or Clear then runs only those (each
    calls :meth:`refresh` first), unless ``linked`` says otherwise; a click runs the whole page.
    """

    def __init__(self, page: str, data, ids, coords, *, labels=None, space=None, name: str = "map",
                 noun: str = "point", id_name: str = "id", label_name: str = "label", where=None,
                 k: int | None = None, linked=False, fragments=()):
        self.page, self.data, self.name, self.noun, self.linked = page, data, name, noun, linked
        self.fragments = tuple(fragments)
        self.nouns = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
        self.ids = np.asarray(ids, dtype=object)
        self.coords = np.asarray(coords)
        self.labels = None if labels is None else np.asarray(labels, dtype=object)
        self.space = space
        self.id_name, self.label_name = id_name, label_name
        self.refresh()
        state = self.state
        self.point = sel.position(self.ids, state.point)
        n = len(self.ids)
        self.fixed_k = k is not None
        self.k = min(int(k if k is not None else st.session_state.get(f"{page}.{name}.k", 10)), sel.largest_k(n))
        self.view = None
        if self.point is not None and space is not None and n > 1:
            self.view = sel.neighbours(space, self.coords, self.point, self.k, self.ids, self.labels, id_name,
                                       label_name)
        from app.ui.layout import presenting

        # on a projector the options alone, in one row: the map under them keeps the window's height
        mode = (where or st).radio("On the map", list(sel.MODES), key=f"{page}.{name}.mouse", horizontal=True,
                                   bind="query-params", label_visibility="collapsed" if presenting() else "visible",
                                   help="Drag a box or a lasso to select points; or click one to compare its "
                                   "nearest neighbours in the data and on the map. Double-click the map to "
                                   "clear the selection.")
        self.mode = sel.MODES[mode]
        self.drawn = self.coords

    def refresh(self) -> None:
        """Read the selection again (a fragment's rerun after a box: the rest of these tools is as the page
        made them)."""
        self.state = sel.selection(self.page, self.data)
        self.rows = sel.positions(self.ids, self.state.ids)

    # ------------------------------------------------------------ the map (the lab's map component)
    def marks(self, legend: bool = True) -> list[dict]:
        """Map layers for the inspected point: its neighbours in both spaces (green rings), in the data only
        (red), on the map only (orange crosses), and the point itself (a labelled diamond)."""
        view = self.view
        if view is None:
            return []
        data_idx, map_idx = np.asarray(view["data_idx"]), np.asarray(view["map_idx"])
        out = []
        for idx, name, colour, shape in (
                (np.intersect1d(data_idx, map_idx), "neighbour in both", BOTH, "circle"),
                (np.setdiff1d(data_idx, map_idx), "neighbour in the data only", DATA_ONLY, "circle"),
                (np.setdiff1d(map_idx, data_idx), "neighbour on the map only", MAP_ONLY, "x")):
            if idx.size:
                out.append(lab_map.ring(idx, name=name, color=colour, shape=shape, size=7, width=2.5, legend=legend))
        out.append(lab_map.ring([view["point"]], name=f"{self.noun} {self.ids[view['point']]}", color=POINT,
                                shape="diamond", size=8, label=True, legend=legend))
        return out

    def draw(self, where, key: str, xy=None, *, rings=(), selection: bool = True, **kw) -> np.ndarray:
        """Draw ``xy`` (default: this map's coordinates; another view of the same items, row for row)
        with the lab's map component in ``where``: the selection ringed, the inspected point and its
        neighbours marked, box / lasso / click answering in the chosen mode. ``kw`` goes to
        :func:`app.ui.map.draw` (colour, labels, hover, layers, title, height). Returns the
        coordinates drawn (aligned to the map this key showed before)."""
        xy = self.coords if xy is None else xy
        drawn = lab_map.draw(where, xy, key=key, ids=self.ids, mode=self.mode,
                             selected=self.rows if selection else (), rings=list(rings) + self.marks(),
                             on_select=sel.on_map_select(self.page, self.data, self.ids, self.linked, self.fragments),
                             **kw)
        if xy is self.coords:
            self.drawn = drawn
        return drawn

    # ------------------------------------------------------------ below the map
    def panel(self, summary: Callable[[np.ndarray], None] | None = None, *, file_name: str = "selection.csv",
              extra: dict | None = None, neighbours: bool = True) -> None:
        """The selection (table, the page's ``summary(rows)``, CSV, Clear) and, with ``neighbours``, the
        inspected point's neighbours (:meth:`neighbour_lists`); a hint when nothing is selected."""
        page, name = self.page, self.name
        if self.rows.size:
            frame = sel.table(self.ids, self.labels, self.coords, self.rows, extra, self.id_name, self.label_name)
            st.markdown(f"**Selected: {self.rows.size:,} {self.noun if self.rows.size == 1 else self.nouns}**")
            if summary is None:
                st.dataframe(frame, hide_index=True, key=f"{page}.{name}.selected", height=280)
            else:
                left, right = st.columns([3, 2])
                left.dataframe(frame, hide_index=True, key=f"{page}.{name}.selected", height=280)
                with right:
                    summary(self.rows)
            row = st.container(horizontal=True)  # one row (a horizontal container: fewer elements than columns)
            # written when clicked, not at every run that shows a selection
            row.download_button("Selection (.csv)", lambda: sel.to_csv(frame), file_name, "text/csv",
                                key=f"{page}.{name}.download", on_click="ignore",
                                help="The selected ids, labels and map coordinates.")
            row.button("Clear the selection", key=f"{page}.{name}.clear", on_click=sel.clear,
                       args=(page, self.linked, self.fragments))
        else:
            st.caption(f"Drag a box or a lasso on the map to list the {self.nouns} inside it; choose "
                       f"'click a point' above the map and click a {self.noun} to see its nearest neighbours.")
        if neighbours:
            self.neighbour_lists()

    def neighbour_lists(self, forget: bool = True) -> None:
        """The inspected point's k nearest neighbours in the original space and on the map, side by side."""
        if self.view is None:
            return
        view, page, name = self.view, self.page, self.name
        p = view["point"]
        value = None if self.labels is None else self.labels[p]
        if isinstance(value, (float, np.floating)):
            value = f"{self.label_name} {value:.4g}"
        label = "" if value is None else f" ({md_escape(value)})"
        n = len(self.ids)
        shown = self.ids[p] if isinstance(self.ids[p], (int, np.integer)) else f"“{self.ids[p]}”"
        st.markdown(f"**{self.noun.capitalize()} {md_escape(shown)}{label}: its {view['k']} nearest "
                    f"neighbours** ({view['recall']:.0%} in both lists)")
        c1, c2 = st.columns(2)
        c1.caption("In the original space")
        c1.dataframe(view["data"], hide_index=True, key=f"{page}.{name}.near_data")
        c2.caption("On the map")
        c2.dataframe(view["map"], hide_index=True, key=f"{page}.{name}.near_map")
        k1, k2 = st.columns([2, 3])
        if not self.fixed_k:
            ranged_slider("Neighbours (k)", 1, sel.largest_k(n), self.k, key=f"{page}.{name}.k", where=k1,
                          why=f"there are {n} {self.nouns}", bind="query-params")
        if forget:
            k2.button("Forget the point", key=f"{page}.{name}.forget", on_click=sel.forget_point, args=(page,))
        st.caption("Green rings on the map: neighbours in both lists; red: near in the data but placed apart; "
                   "orange crosses: near on the map only. The share in both is this point's neighbour recall.")

    # ------------------------------------------------------------ pin and compare
    def compare(self, label: str, *, what: str = "setting") -> None:
        """Pin the current map, or compare it with the pinned one (overlap at k, disparity, overlap map)."""
        page, name = self.page, self.name
        found = sel.comparison(page, self.data, self.ids, self.coords, self.k)
        row = st.container(horizontal=True, vertical_alignment="center")  # one row, fewer elements than columns
        row.button("Pin this map", key=f"{page}.{name}.pin", on_click=sel.pin,
                   args=(page, self.data, self.ids, self.coords, label),
                   help=f"Keep this map, change a {what}, and see how much of each {self.noun}'s neighbourhood "
                        "survives.")
        if found is None:
            row.caption(f"Pin this map, then change a {what}: the page compares the new map with the pinned one.")
            return
        row.button("Unpin", key=f"{page}.{name}.unpin", on_click=sel.unpin, args=(page,))
        row.caption(f"Pinned: {md_escape(found['label'])}")
        if "error" in found:
            st.info(found["error"])
            return
        figures = st.container(horizontal=True, gap="medium")
        figures.metric(f"neighbour overlap@{found['k']}", f"{found['mean']:.3f}",
                  help="Per item, the share of its k nearest neighbours on the pinned map that are also its k "
                       "nearest on this one; averaged over the items both maps hold.")
        figures.metric("nearest-neighbour variation", f"{found['variation']:.3f}", help="1 - overlap.")
        figures.metric("Procrustes disparity", f"{found['disparity']:.3f}",
                  help="What remains after the best rotation, reflection, scale and shift of the pinned map onto "
                       "this one: 0 = the same picture, turned; 1 = nothing in common.")
        figures.metric(f"{self.nouns} in both", f"{found['shared']:,}")
        overlap = np.asarray(found["overlap"], dtype=np.float64)
        kept = np.nan_to_num(overlap, nan=1.0)
        numbered = lab_map.are_rows(self.ids, len(self.ids))  # ids that are row numbers name nothing by themselves
        labels = None if self.labels is None or len(self.ids) > 5000 else \
            [str(i) if not numbered or k < 0.5 else "" for i, k in zip(self.ids, kept)]
        lab_map.draw(st, self.coords, key=f"{page}.{name}.overlap", ids=self.ids,
                     color=lab_map.continuous(overlap, scale="rdylgn", vmin=0, vmax=1,
                                              title=f"overlap@{found['k']} (grey: not in the pinned map)"),
                     labels=labels, label_priority=-kept,
                     hover={f"overlap@{found['k']}": overlap}, size=4,
                     title=f"This map coloured by each {self.noun}'s neighbour overlap with the pinned one",
                     height=460)
        st.caption("A low disparity with a high overlap: the setting only turned or scaled the picture. A high "
                   "disparity with a high overlap: the neighbourhoods held but moved relative to each other. Red "
                   "points lost their neighbours"
                   + (f"; the {self.nouns} numbered are those that kept fewer than half." if numbered else "."))
