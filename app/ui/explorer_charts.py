"""The Maps page's pieces: what is drawn for the chosen columns (labels, colours, hover), the map with its
search rings and cluster labels, the filter, isolate, the figures under the map, the exports and the theory."""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

from app.services import explorer as svc
from app.services import maps as map_state
from app.services import selection as picked
from app.ui import map as lab_map
from app.ui.controls import ranged_slider
from app.ui.text import md_escape

MAP_KEY = "maps.map"
#: Seconds between two frames of a live t-SNE at least (the fragment that draws it runs again this often), and
#: points per second of frame interval: a frame of 3,000 points costs the server and the browser about 55 ms of
#: the two cores the optimiser shares, so bigger maps are drawn less often (3,000 points: 0.25 s a frame; at
#: 0.08 s, 138 frames made the run 1.7x openTSNE's time alone).
FRAME_S = 0.08
FRAME_POINTS_PER_S = 12_000


def frame_seconds(n: int) -> float:
    """Seconds between two live frames of ``n`` points."""
    return max(FRAME_S, n / FRAME_POINTS_PER_S)
#: Values a category filter offers at most (the commonest); a column with more is filtered by typing.
FILTER_CHOICES = 200


@dataclass(frozen=True)
class View:
    """What the map draws for some rows of the table: ids (the rows' numbers in the file), labels, colour."""

    ids: np.ndarray
    labels: np.ndarray
    label_name: str
    colour_by: str | None
    colour_values: np.ndarray | None
    codes: np.ndarray | None  # category codes, with names
    names: tuple
    positions: np.ndarray  # positions into the table's rows

    @classmethod
    def make(cls, table, label_by: str, colour_by: str, roles: dict | None = None) -> "View":
        meta = table.meta
        ids = (table.rows + 1).astype(object)
        if label_by in meta.columns:
            column = meta[label_by]
            labels = column.astype(str).where(column.notna(), "").to_numpy(dtype=object)
            label_name = label_by
        else:
            labels, label_name = np.array([str(i) for i in ids], dtype=object), "row"
        values = codes = None
        names: tuple = ()
        column = colour_by if colour_by in meta.columns else None
        if column is not None:
            values = meta[column].to_numpy()
            if column in (roles or svc.roles(meta))["number"]:
                values = pd.to_numeric(meta[column], errors="coerce").to_numpy(dtype=np.float64)
            else:
                codes, found, _ = svc.category_groups(values)
                names = tuple(found)
        return cls(ids, labels, label_name, column, values, codes, names, np.arange(len(ids)))

    def subset(self, rows) -> "View":
        """The view of some of its rows (positions), in their order; None: all."""
        if rows is None:
            return self
        return self.take(np.asarray(rows, dtype=np.int64))

    def take(self, index) -> "View":
        def pick(a):
            return None if a is None else a[index]

        return replace(self, ids=self.ids[index], labels=self.labels[index], colour_values=pick(self.colour_values),
                       codes=pick(self.codes), positions=self.positions[index])

    @property
    def colour(self) -> dict:
        if self.colour_by is None:
            return lab_map.single(lab_map.PALETTE[0])
        if self.colour_by == svc.RECALL:
            return lab_map.continuous(self.colour_values, scale="rdylgn", title=f"neighbour recall at {svc.TRUST_K}",
                                      vmin=0.0, vmax=1.0)
        if self.codes is not None:  # the legend lists the categories drawn, each in the colour it has on the whole map
            present = np.unique(self.codes)
            remap = np.full(max(len(self.names), 1), -1, dtype=np.int32)
            remap[present] = np.arange(len(present), dtype=np.int32)
            names = [self.names[k] for k in present]
            if present.size and present.max() >= lab_map.palette.distinct():  # more than the pairs: see categories
                return lab_map.categories(remap[self.codes], names=names, title=self.colour_by)
            # each category keeps the colour and mark it has on the whole map (no two alike)
            styles = [lab_map.palette.style(int(k)) for k in present]
            return lab_map.categories(remap[self.codes], names=names, colors=[c for c, _ in styles],
                                      marks=[m for _, m in styles], title=self.colour_by)
        return lab_map.continuous(self.colour_values, title=self.colour_by)

    def hover(self) -> dict:
        out = {self.label_name: self.labels}
        if self.colour_by is not None and self.colour_by != self.label_name:
            out[self.colour_by] = self.colour_values
        return out


@st.cache_resource(max_entries=8, show_spinner=False)
def view_of(ref, columns, label_by: str, colour_by: str) -> View:
    """:meth:`View.make` of the page's table, made once per choice of labels and colour and shared (read only): a
    million rows' labels and colour codes take about a second to make."""
    return View.make(svc.table(ref, columns), label_by, colour_by, svc.table_roles(ref, columns))


SEARCH_ENTERED = "maps.search_entered"


def search_entered() -> None:
    """The search box's callback (Enter, or leaving it changed): the page selects the matches in this run."""
    st.session_state[SEARCH_ENTERED] = True


def recall_colour(ref, columns, rows, method: str, params: dict, mapped: View, shown: View, coords, X_all) -> View:
    """``shown`` coloured by each point's neighbour recall, computed over every mapped row (the filter hides
    rows, it does not change their neighbours)."""
    values = svc.recall(ref, columns, svc.rows_key(rows), method, tuple(sorted(params.items())), X_all, coords)
    order = np.argsort(mapped.positions, kind="stable")
    index = order[np.searchsorted(mapped.positions[order], shown.positions)]
    return replace(shown, colour_by=svc.RECALL, colour_values=values[index], codes=None, names=())


def method_settings(where, method: str, n: int) -> dict:
    """The chosen method's settings (sliders and choices, kept in the link), capped by what ``n`` points allow,
    and the distance every method maps by."""
    params = {}
    labels = {"perplexity": "Perplexity", "n_neighbors": "Neighbours", "min_dist": "Minimum distance",
              "exaggeration": "Exaggeration", "init": "Start from"}
    helps = {"perplexity": "About how many neighbours each point's affinities spread over: small values make "
                           "tight, many clusters; large values keep more of the global layout.",
             "n_neighbors": "The neighbourhood each point is fitted to: small values keep local detail and can "
                            "break the map apart, large values keep more of the global shape.",
             "min_dist": "How tightly UMAP may pack points: 0 gives dense clumps, near 1 an even spread.",
             "exaggeration": "Attraction multiplied by this after the first 250 iterations: 1 is plain t-SNE; "
                             "2-4 pull clusters tighter and keep more of the global layout, as UMAP does.",
             "init": "Where the optimiser starts: a PCA (or spectral) layout keeps the global arrangement more "
                     "repeatable; random shows what the method does from nothing."}
    for name, spec in svc.METHODS[method][1].items():
        key = f"maps.{method}.{name}"
        if isinstance(spec, list):
            svc.keep_choice(key, spec, spec[0])
            params[name] = where.selectbox(labels[name], spec, key=key, bind="query-params", help=helps[name])
            continue
        lo, value, hi, step = spec
        if name == "perplexity":
            hi = min(hi, float(max(svc.largest_perplexity(n), lo)))
        if name == "n_neighbors":
            hi = min(hi, n - 1)
        kind = int if isinstance(step, int) else float
        params[name] = kind(ranged_slider(labels[name], kind(lo), kind(hi), kind(value), key=key, where=where,
                                          why=f"there are {n:,} points", step=step, help=helps[name],
                                          bind="query-params"))
    if method != "PCA":
        params["metric"] = where.radio(
            "Distance", list(svc.METRICS), key="maps.metric", horizontal=True, bind="query-params",
            help="Euclidean compares the numbers as they are; cosine compares directions only (each row scaled to "
                 "length 1 first), as text and sentence embeddings are usually compared. Neighbours, "
                 "trustworthiness and clusters in the vectors use the same distance.")
    return params


def settings_text(params: dict) -> str:
    return ", ".join(f"{k.replace('n_neighbors', 'neighbours').replace('_', ' ')} "
                     f"{v:g}" if not isinstance(v, str) else f"{k} {v}" for k, v in params.items())


def matches(labels, query: str, regex: bool):
    """Positions of the labels the search finds, and a sentence when the search cannot run."""
    return svc.search(labels, query, regex)


def filter_panel(meta: pd.DataFrame, roles: dict, view: View):
    """The filter expander: keep rows by the values of a category column or a range of a number column. Returns a
    boolean mask over the table's rows, or None when nothing is filtered."""
    with st.expander("Filter rows", icon=":material/filter_alt:",
                     expanded=bool(st.session_state.get("maps.filter", "(none)") != "(none)")):
        options = ["(none)"] + roles["category"] + roles["number"]
        column = st.selectbox("Keep rows by", options, key="maps.filter", bind="query-params",
                              help="A column of categories keeps the values ticked; a column of numbers keeps a "
                                   "range. The map keeps its layout: filtering hides rows, isolating re-maps them.")
        if column == "(none)":
            return None
        if column in roles["category"]:
            counts = meta[column].map(lambda v: "(missing)" if v is None or v != v else str(v)).value_counts()
            choices = list(counts.index[:FILTER_CHOICES])
            svc.keep_choice(f"maps.filter.{column}", choices, choices[:2])
            wanted = st.multiselect("Values", choices, default=choices[:2], key=f"maps.filter.{column}",
                                    bind="query-params")
            if len(counts) > FILTER_CHOICES:
                st.caption(f"The {FILTER_CHOICES} commonest of {len(counts):,} values are offered.")
            return svc.filter_rows(meta[column], values=wanted)
        x = pd.to_numeric(meta[column], errors="coerce")
        lo, hi = float(np.nanmin(x)), float(np.nanmax(x))
        if not hi > lo:
            st.caption(f"Every row has {column} = {lo:g}: nothing to filter.")
            return None
        key = f"maps.filter.{column}"
        held = st.session_state.get(key)
        if isinstance(held, (list, tuple)) and not (lo <= min(held) and max(held) <= hi):
            st.session_state[key] = (lo, hi)  # another data set's column of the same name had another range
        low, high = st.slider("Range", lo, hi, (lo, hi), key=key, bind="query-params")
        return svc.filter_rows(meta[column], low=low, high=high)


def draw_map(tools, shown: View, coords, *, matches, method: str, clusters=None, isolated: bool = False,
             label_points: bool = True, cluster_space: str = "map", density: bool = False, sweep=None,
             sizes=None) -> np.ndarray:
    """The map: coloured, labelled, the search's matches ringed and framed, cluster names at their centres (a
    click on one selects its cluster), lines of equal density under the points."""
    ids = shown.ids
    if method == svc.GIVEN:  # its axes are the file's own columns: drawn as they are, and what the next is turned to
        map_state.remember(MAP_KEY, coords, ids)
        drawn = np.asarray(coords, dtype=np.float64)
    else:
        drawn = map_state.aligned(MAP_KEY, coords, ids)
    rings = []
    if len(matches):
        rings.append(lab_map.ring(matches, name=f"search: {len(matches):,} match{'es' if len(matches) != 1 else ''}",
                                  color="#c2255c", size=9, width=2.5, fill=False, label=len(matches) <= 30))
    marks = []
    if clusters is not None and len(clusters[1]):
        found, found_table = clusters
        centres = np.array([np.median(drawn[found == c], axis=0) for c in found_table["cluster"]])
        text = [(f"{r.label} ({r.share:.0%})" if r.share == r.share else r.label) if r.label else f"cluster {r.cluster}"
                for r in found_table.itertuples()]
        marks.append(lab_map.markers(centres[:, 0], centres[:, 1], text=text, shape="square", color="#212529",
                                     size=5, name=f"clusters (HDBSCAN in the {cluster_space}; click a name to select)",
                                     groups=found, group_of=found_table["cluster"]))
    if sweep is not None:
        sweep = {**sweep, "frames": svc.aligned_sweep(sweep["frames"], sweep["at"], drawn)}
    lines = []
    if density:
        for fraction, paths in svc.contours(drawn):
            lines.append(lab_map.contours(paths, name="density: densest 25 %, 50 %, 75 %" if fraction == 0.25 else "",
                                          color=f"rgba(33,37,41,{0.85 - 0.5 * fraction:.2f})", width=1.3))
    n = len(ids)
    # point labels give way to cluster names, and are not written when they only repeat a few categories
    labels = shown.labels if label_points and not marks else None
    tools.draw(st, MAP_KEY, xy=drawn, align=False, color=shown.colour, labels=labels,
               hover=shown.hover(), rings=rings, markers=marks, contours=lines, focus=matches, sweep=sweep,
               size=point_size(n) if sizes is None else point_sizes(sizes),
               title=f"{method} map of {n:,} {'isolated ' if isolated else ''}rows"
                     + (f", coloured by {shown.colour_by}" if shown.colour_by else ""),
               height=560)
    return drawn


def point_size(n: int) -> float:
    """A point's radius in pixels on a map of ``n``: smaller as they crowd (past 100,000 most points overlap, and a
    smaller mark keeps clusters apart and costs less to draw)."""
    return 5.0 if n <= 5_000 else 3.5 if n <= 100_000 else 2.5 if n <= 300_000 else 1.8


def point_sizes(values) -> np.ndarray:
    """Point radii from 2 to 9 px, growing with ``values`` (linearly from their smallest to their largest; a
    missing value gets the smallest)."""
    v = np.asarray(pd.to_numeric(pd.Series(values), errors="coerce"), dtype=np.float64)
    finite = v[np.isfinite(v)]
    if not finite.size or not finite.max() > finite.min():
        return np.full(len(v), 4.0)
    return np.where(np.isfinite(v), 2.0 + 7.0 * (v - finite.min()) / (finite.max() - finite.min()), 2.0)


def live_tsne(top, ref, columns, rows, params: dict, shown: View) -> bool:
    """This map's t-SNE drawn while it runs: started here when neither a finished map (any session's) nor a
    layout this session stopped is there, then drawn by a fragment that runs every :func:`frame_seconds` with
    the latest layout, a progress bar and Stop. True while it runs (the page draws nothing that needs the final
    map); False once the map is there, after saying how a run of this session ended (in ``top``). A run that
    failed raises :class:`app.services.explorer.MapFailed`; one stopped before its first layout offers to start
    again."""
    key = svc.tsne_key(ref, columns, rows, params)
    svc.LIVE.take_in(key)  # this session's run, if it ended since the last run of the page
    notice = svc.LIVE.notice(key)
    if notice is not None and notice[0] == "error":
        raise svc.MapFailed(notice[1])
    if notice is not None and notice[0] == "info":
        top.info(notice[1], icon=":material/pause_circle:")
    if svc.LIVE.shown(key) is not None:
        return False
    if svc.LIVE.job(key) is None:
        if notice is not None and notice[0] == "stopped" or st.session_state.get("maps.tsne_stopped") == key:
            st.session_state["maps.tsne_stopped"] = key
            top.info("Stopped before the first layout: there is nothing to keep.", icon=":material/pause_circle:")
            if not top.button("Start t-SNE again", key="maps.tsne_again", type="primary"):
                return True
            st.session_state.pop("maps.tsne_stopped", None)
        svc.start_tsne(ref, columns, rows, params)
        map_state.forget(MAP_KEY)  # the frames and the map they end in keep t-SNE's own axes
    st.fragment(_live_view, run_every=frame_seconds(len(shown.ids)))(key, ref, columns, rows,
                                                                      params.get("metric", "euclidean"), shown)
    return True


def _live_view(key, ref, columns, rows, metric: str, shown: View) -> None:
    """One frame of a live t-SNE (see :func:`live_tsne`); once the run has ended, the page runs again and draws
    the finished map in the same place."""
    job = svc.LIVE.job(key)
    if job is not None and job.running and job.stopping:
        job.wait(svc.live.STOP_WAIT_S)  # a stopped t-SNE ends at its next layout: show what it kept at once
    if job is None or not job.showing():
        st.rerun(scope="app")
    bar = st.container(horizontal=True, vertical_alignment="center")
    bar.button("Stop", key="maps.tsne_stop", on_click=svc.LIVE.ask_stop, icon=":material/stop_circle:",
               help="Keep the layout so far.")
    fraction, text = job.progress
    bar.progress(min(max(fraction, 0.0), 1.0), text=text)
    start = svc.tsne_start(ref, columns, svc.rows_key(rows), rows, metric)
    frame = job.next_frame(spread=svc.live.spread(start))  # each layout drawn at the start's scale
    if frame is None:  # before the first layout: the PCA openTSNE starts from
        frame = (start, "0 (the PCA it starts from)")
    n = len(frame[0])
    glide = int(850 * frame_seconds(n))  # a little less than a frame
    lab_map.draw(st, frame[0], key=MAP_KEY, ids=shown.ids, align=False, glide_ms=glide, color=shown.colour,
                 size=3.5 if n > 5000 else 5, title=f"t-SNE of {n:,} rows, iteration {frame[1]}", height=560)
    st.caption(f"t-SNE is running ({time.perf_counter() - job.started:.0f} s): the map moves as the optimiser places "
               "the points; Stop keeps the layout so far. The figures, the selection and the exports come when it "
               "ends.")


SWEEP_SLOT = "maps.sweep"


def sweep_panel(where, top, ref, columns, rows, method: str, params: dict, n: int):
    """The sweep's button (in ``where``): maps at several values of the method's main setting, computed one after
    the other with a progress bar (in ``top``), then kept for this session. Returns (name, values, maps) of the
    sweep of this map's other settings, or None."""
    found = svc.sweep_values(method, params, n)
    if found is None:
        return None
    name, values = found
    key = svc.sweep_key(ref, columns, rows, method, params)
    held = st.session_state.get(SWEEP_SLOT)
    label = {"perplexity": "perplexity", "n_neighbors": "neighbours"}[name]
    if held is not None and held[0] == key:
        return name, held[1], held[2]
    if where.button(f"Sweep {label}: {', '.join(f'{v:g}' for v in values)}", key="maps.sweep_run",
                    icon=":material/animation:",
                    help=f"Map the rows at each of these values of {label}, then scrub between them under the map: "
                         "the browser morphs from one map to the next, each turned onto its neighbour, so you see "
                         "how the setting reshapes your data."):
        bar = top.progress(0.0, text=f"Sweep of {label}")
        frames = []
        for k, v in enumerate(values):
            def told(fraction, text, k=k, v=v):
                bar.progress(min((k + fraction) / len(values), 1.0),
                             text=f"{method} at {label} {v:g} ({k + 1} of {len(values)}): {text}")

            told(0.0, "starting")
            try:
                frames.append(svc.sweep_map(ref, columns, rows, method, params, v, told))
            except svc.MapFailed as err:
                bar.empty()
                top.error(md_escape(str(err)), icon=":material/error:")
                return None
        bar.empty()
        st.session_state[SWEEP_SLOT] = (key, values, frames)
        return name, values, frames
    return None


def sweep_for(sweep, params: dict, mapped: View, shown: View) -> dict | None:
    """The sweep as the map draws it: its maps of the rows on the map (the filter's); :func:`draw_map` turns each
    onto its neighbour, the one of this map's own value onto the map on screen."""
    if sweep is None:
        return None
    name, values, frames = sweep
    at = values.index(params[name]) if params[name] in values else None
    if at is None:
        return None
    order = np.argsort(mapped.positions, kind="stable")
    index = order[np.searchsorted(mapped.positions[order], shown.positions)]
    frames = [np.asarray(f)[index] for f in frames]
    label = {"perplexity": "perplexity", "n_neighbors": "neighbours"}[name]
    return {"name": label, "values": values, "frames": frames, "at": at}


def computed(where, ref, columns, rows, method: str, params: dict, n: int):
    """The map (:func:`app.services.explorer.compute`) with what it costs on screen in ``where``: UMAP's epochs
    on a progress bar, a spinner with the seconds for the rest. Raises MapFailed as compute does."""
    if method == "UMAP":
        bar = where.progress(0.0, text=f"UMAP of {n:,} rows: starting")
        try:
            return svc.compute(ref, columns, rows, method, params,
                               lambda f, text: bar.progress(min(max(f, 0.0), 1.0), text=f"UMAP of {n:,} rows: {text}"))
        finally:
            bar.empty()
    with where, st.spinner(f"Computing the {method} map of {n:,} rows…", show_time=True):
        return svc.compute(ref, columns, rows, method, params)


def visible(table, shown: View, coords, keep):
    """The rows the filter keeps of those mapped: their view, their map coordinates and their vectors."""
    X = table.X[shown.positions]
    if keep is None:
        return shown, coords, X
    mask = keep[shown.positions]
    index = np.flatnonzero(mask)
    return shown.take(index), coords[index], X[index]


def figures(ref, columns, rows, method: str, params: dict, X, coords, shown_rows: int, extra: dict, matches,
            groups, recall: bool = False) -> None:
    """The numbers under the map: rows, the whole map's trustworthiness (``X`` and ``coords``: every row mapped,
    whatever the filter hides), what the method reports, the search's and clusters' counts."""
    row = st.container(horizontal=True, gap="medium")
    row.metric("rows on the map", f"{shown_rows:,}")
    if len(X) > 3 * svc.TRUST_K:
        t, used = svc.trust(ref, columns, svc.rows_key(rows), method, tuple(sorted(params.items())), X, coords)
        row.metric(f"trustworthiness@{svc.TRUST_K}", f"{t:.3f}",
                   help="1 when each point's nearest neighbours on the map are also near it in the vectors; it "
                        "falls as the map brings in points that are far in the data. Of the whole map, whatever "
                        "the filter hides." +
                        (f" Computed on a seeded sample of {used:,} points." if used < len(X) else ""))
    if recall:
        key = (ref, columns, svc.rows_key(rows), method, tuple(sorted(params.items())))
        mean = float(np.mean(svc.recall(*key, X, coords)))
        check = svc.recall_error(*key, X, coords)
        row.metric(f"neighbour recall@{svc.TRUST_K}", f"{mean:.3f}" if check is None else f"≈ {mean:.3f}",
                   help="The share of each row's nearest rows in the vectors that are also its nearest on the map, "
                        "averaged." + ("" if check is None else
                        f" Past {svc.RECALL_EXACT:,} rows the vectors' neighbours are found approximately "
                        f"(NN-descent). On a seeded sample of {check['rows']:,} rows the exact figure is "
                        f"{check['exact']:.3f} against {check['approximate']:.3f} approximate (difference "
                        f"{check['difference']:+.3f}); NN-descent found {check['found']:.1%} of the exact "
                        "neighbours."))
        if check is not None:
            row.metric(f"exact on {check['rows']:,} rows", f"{check['exact']:.3f}",
                       delta=f"{check['difference']:+.3f} approximate", delta_color="off",
                       help="Neighbour recall of a seeded sample, its vectors' neighbours searched exactly among "
                            "every row; the delta is what the approximation changes on the same rows.")
    if "explained_variance_ratio" in extra:
        row.metric("variance kept", f"{sum(extra['explained_variance_ratio']):.1%}",
                   help="The share of the vectors' variance the two principal components hold.")
    if len(matches):
        row.metric("search matches", f"{len(matches):,}")
    if groups is not None:
        sampled = (f" HDBSCAN ran on a seeded sample of {svc.CLUSTER_SAMPLE:,} rows; every other row joined the "
                   "cluster of its nearest sampled row." if len(groups[0]) > svc.CLUSTER_SAMPLE else "")
        row.metric("clusters", f"{len(groups[1]):,}", help=f"{int((groups[0] < 0).sum()):,} rows belong to none. "
                   "Click a cluster's name on the map to select its rows." + sampled)


def caption(shown: View, method: str, table, keep) -> None:
    parts = []
    if shown.colour_by and shown.codes is not None and len(shown.names) and shown.names[-1] == svc.OTHER:
        parts.append(f"the legend shows the {len(shown.names) - 1} commonest values of {shown.colour_by}; the rest "
                     "share 'other'")
    if keep is not None:
        parts.append(f"the filter keeps {int(keep.sum()):,} of {len(keep):,} rows (the layout is the whole map's)")
    parts.append("a new method or setting glides the points from the map on screen, turned and scaled onto it")
    st.caption(md_escape("; ".join(parts).capitalize() + ". Hover a point for its label; drag a box or a lasso to "
                         "select, or click a point (choose 'click a point') to compare its neighbours."))


def isolate_buttons(page: str, data, tools, rows, shown: View) -> None:
    """Isolate the selection (map only its rows, with the same method and settings), or go back to every row."""
    bar = st.container(horizontal=True, vertical_alignment="center")
    if rows is not None:
        bar.button("Back to every row", key="maps.back", icon=":material/arrow_back:", on_click=picked.back,
                   args=(page,))
        bar.caption(f"The map holds the {len(rows):,} isolated rows, mapped on their own.")
    elif tools.rows.size >= 3:
        bar.button(f"Isolate the selection ({tools.rows.size:,} rows)", key="maps.isolate",
                   icon=":material/filter_center_focus:", on_click=picked.isolate,
                   args=(page, data, shown.positions[tools.rows]),
                   help="Map only the selected rows, with the same method and settings: their own structure, "
                        "without the rest pulling on them.")


def selection_summary(shown: View):
    """What the selection holds of the colour column (its commonest values, or its range)."""

    def summary(rows) -> None:
        if shown.colour_by is None:
            st.caption("Colour the map by a column to see its values in the selection here.")
            return
        values = shown.colour_values[rows]
        if shown.codes is None:
            v = np.asarray(values, dtype=np.float64)
            st.markdown(f"**{md_escape(shown.colour_by)}** in the selection: {np.nanmin(v):.4g} to "
                        f"{np.nanmax(v):.4g}, mean {np.nanmean(v):.4g}")
            return
        counts = pd.Series([str(v) for v in values]).value_counts().head(8)
        st.dataframe(pd.DataFrame({shown.colour_by: counts.index, "rows": counts.to_numpy()}), hide_index=True,
                     key="maps.selection_counts")

    return summary


def _full_table(table, shown: View, coords, rows_idx=None) -> pd.DataFrame:
    positions = shown.positions if rows_idx is None else shown.positions[rows_idx]
    xy = coords if rows_idx is None else coords[rows_idx]
    frame = table.meta.iloc[positions].reset_index(drop=True).copy()
    # the row's number in the file; a file's own column "row" (or the page's, for a file without metadata) keeps
    # its name and the number gets another
    name = next(n for n in ("row", "file_row", "file_row_number") if n not in frame.columns)
    frame.insert(0, name, (table.rows[positions] + 1))
    vectors = pd.DataFrame(table.X[positions], columns=table.columns)
    frame = pd.concat([frame, vectors], axis=1)
    frame["map_x"], frame["map_y"] = xy[:, 0], xy[:, 1]
    return frame


def exports(table, shown: View, coords, tools) -> None:
    """Downloads: every row shown with all its columns and its map coordinates, as CSV and Parquet; the selection
    likewise; a preview of the table's first rows above them."""

    def csv(rows_idx=None) -> str:
        return _full_table(table, shown, coords, rows_idx).to_csv(index=False)

    def parquet() -> bytes:
        out = io.BytesIO()
        _full_table(table, shown, coords).to_parquet(out, index=False)
        return out.getvalue()

    first = np.arange(min(5, len(shown.ids)))
    st.dataframe(_full_table(table, shown, coords, first), hide_index=True, key="maps.preview", height=213,
                 row_height=35)
    st.caption(f"The first rows of what the downloads hold: every row on the map ({len(shown.ids):,}) with every "
               "column of the file and its map coordinates.")
    row = st.container(horizontal=True)
    row.download_button("Table with the map (.csv)", lambda: csv(), "maps-table.csv", "text/csv",
                        key="maps.export_csv", on_click="ignore", icon=":material/download:",
                        help="Every row on the map with every column of the file and its map coordinates.")
    row.download_button("Table with the map (.parquet)", parquet, "maps-table.parquet", "application/octet-stream",
                        key="maps.export_parquet", on_click="ignore", icon=":material/download:")
    if tools.rows.size:
        chosen = tools.rows.copy()
        row.download_button(f"Selection with every column (.csv, {chosen.size:,} rows)", lambda: csv(chosen),
                            "maps-selection-full.csv", "text/csv", key="maps.export_selection", on_click="ignore",
                            icon=":material/download:")


def theory(method: str) -> None:
    """What each method keeps, its formula, what the controls change and how the picture misleads."""
    st.markdown(
        "A map puts every row's vector on a plane so that something about the vectors survives. **PCA** keeps "
        "the two directions along which the vectors vary most: a linear shadow, with meaningful axes and honest "
        "large distances, that can pile apart groups on top of each other.")
    st.latex(r"Y = (X - \bar x)\,V_2,\qquad V_2 = \text{the top two eigenvectors of } \tfrac{1}{n}(X-\bar x)^\top "
             r"(X-\bar x)")
    st.markdown(
        "**t-SNE** turns distances into neighbour probabilities (a Gaussian per point whose width gives the "
        "chosen perplexity) and moves the map's points until Student-t probabilities on the plane match them: "
        "perplexity is, roughly, how many neighbours each point cares about.")
    st.latex(r"\min_Y \mathrm{KL}(P\,\Vert\,Q)=\sum_{i\neq j} p_{ij}\log\frac{p_{ij}}{q_{ij}},\qquad "
             r"q_{ij} \propto (1 + \lVert y_i - y_j\rVert^2)^{-1}")
    st.markdown(
        "**UMAP** builds a fuzzy graph of each point's *Neighbours* nearest and lays it out with attraction along "
        "its edges and repulsion elsewhere; *Minimum distance* is how tightly points may pack. **Isomap** keeps "
        "distances measured along the neighbour graph (past 3,000 points, the paths from 100 landmarks spread "
        "over the data, not between every pair, which would hold 3.2 GB at 20,000 points; a graph in pieces has "
        "no such distances, and the page says so); **LLE** keeps each point's reconstruction from its "
        "neighbours (the Manifolds page takes it apart).")
    st.markdown(
        "**Given x, y** draws two of the file's own columns as they are, every row up to a million: a map "
        "computed elsewhere (a UMAP run beforehand, a model's 2-D output). Nothing is fitted and no alignment "
        "turns it, so its axes are the file's. The trust tools still measure it against the other numeric columns, "
        "the vectors it claims to picture; with fewer than two of them they measure it against every numeric column, "
        "x and y included, and say so, which flatters the map.")
    st.markdown(
        "**How the picture misleads.** On t-SNE and UMAP maps the size of a cluster and the gaps between clusters "
        "mean little: the methods equalise densities and place far groups arbitrarily, and a different seed or "
        "perplexity moves them. Clusters can appear in noise at low perplexity. PCA never invents a cluster but "
        "can hide one behind another. Check a claim against the vectors: click a point to compare its neighbours "
        "in the data with those on the map, read trustworthiness under the map, and Pin a map before changing "
        "the method to see which neighbourhoods survive. Colours past the 11 commonest values share one grey "
        "'other' entry, so a rare category is not missing, only grouped.")
    st.latex(r"T(k) = 1 - \frac{2}{nk(2n-3k-1)}\sum_i \sum_{j \in U_k(i)} \big(r(i,j) - k\big)")
    st.caption("Trustworthiness: U_k(i) are the points among i's k nearest on the map but not in the data, r(i, j) "
               "the rank of j among i's neighbours in the data.")
    st.markdown(
        "**Clusters and density.** HDBSCAN groups points that are denser than their surroundings and leaves "
        "sparse ones out; it needs no number of clusters. Found *on the map*, a cluster is what the picture shows; "
        "found *in the vectors* (their top 10 principal components), it is a group of the data, and a map that "
        "splits one or merges two shows it at once. A cluster is named by the commonest value of the label column "
        "and its share, or, for free text, by its most distinctive words (class-based TF-IDF):")
    st.latex(r"\text{score}(w, c) = \frac{n_{w,c}}{\sum_{w'} n_{w',c}}\;\log\Big(1 + \frac{A}{\sum_{c'} n_{w,c'}}\Big)")
    st.markdown(
        "where n is how often word w occurs in cluster c's texts and A the average number of words of a cluster. "
        "The density contours come from a Gaussian kernel estimate of the map's points (Scott's bandwidth); each "
        "line encloses the densest 25 %, 50 % or 75 % of the points. On a t-SNE or UMAP map they show where the "
        "*map* is crowded, which the method decided, not how dense the data is.")
