import streamlit as st

from app.services import ahead
from app.services import data as data_service
from app.services import explorer as svc
from app.services import reproduce
from app.services import selection as picked
from app.ui import explorer_charts as charts
from app.ui import share
from app.ui.layout import instrument, main_chart, page_header, theory
from app.ui.selection import MapTools
from app.ui.sidebar import data_source
from app.ui.text import md_escape

page_header("Maps: your embeddings",
            "Upload a table of vectors and explore it: choose the columns that are the vector, map every row by "
            "PCA, t-SNE, UMAP, Isomap or LLE, colour it by any column, search it, filter it, and check which "
            "neighbourhoods the map keeps.")

# UMAP brought in and compiled in the background once per server, when the page that maps by it is first
# opened (importing it holds the interpreter for about 2 s: not at the first visit of every other page)
ahead.warm_compiled()
source, data = data_source("vectors", "maps", default="digits", usable=svc.usable)
ref = data_service.ref("vectors", source)
names = [str(c) for c in (data.columns or [f"v{j + 1}" for j in range(data.X.shape[1])])]
sb = st.sidebar
svc.keep_choice("maps.leave_out", names, [])  # another file's columns are not this one's
left_out = sb.multiselect(f"Leave out of the vector (of {len(names):,} numeric columns)", names, default=[],
                          key="maps.leave_out", bind="query-params",
                          help="Every numeric column is part of each row's vector unless you leave it out here (an "
                               "id, a count, a date). The text columns are metadata: colour, labels, search and "
                               "filters read them.")
main, knobs = instrument()
main_chart("maps.map")
methods = list(svc.METHODS)
svc.keep_choice("maps.method", methods, methods[0])
if st.session_state.get("maps.method_for") != ref.source:  # new data holding a map of its own: drawn as given
    st.session_state["maps.method_for"] = ref.source
    if svc.given_default(names) and "maps.method" in st.session_state:
        st.session_state["maps.method"] = svc.GIVEN
method = knobs.selectbox("Method", methods, key="maps.method", bind="query-params",
                         index=methods.index(svc.GIVEN) if svc.given_default(names) else 0,
                         help="PCA is instant and keeps the directions of largest variance; t-SNE and UMAP keep "
                              "neighbourhoods and take seconds; Isomap keeps distances along the data's "
                              "neighbour graph; LLE keeps each point's reconstruction from its neighbours. "
                              f"'{svc.GIVEN}' draws two of the file's own columns (a map computed beforehand) and "
                              "measures it against the other columns.")
given = {}
if method == svc.GIVEN:
    gx, gy = svc.coordinate_columns(names)
    svc.keep_choice("maps.x", names, gx)
    svc.keep_choice("maps.y", names, gy)
    pair = knobs.container(horizontal=True)
    given["x"] = pair.selectbox("x column", names, index=names.index(gx), key="maps.x", bind="query-params",
                                help="The column drawn across.")
    given["y"] = pair.selectbox("y column", names, index=names.index(gy), key="maps.y", bind="query-params",
                                help="The column drawn up.")
columns = svc.vector_columns(names, list(left_out) + list(given.values()))
if given and columns is None and len(set(names) - set(left_out) - set(given.values())) < 2:
    knobs.caption(":material/info: Fewer than 2 numeric columns are left beside x and y: neighbours and "
                  "trustworthiness are measured on every numeric column, x and y included.")
elif left_out and columns is None:
    sb.caption(":material/info: A map needs at least 2 vector columns, so every column is used.")
table = svc.table(ref, columns)
roles = svc.table_roles(ref, columns)
isolated = picked.isolated("maps", (ref, columns))
rows, sampled = svc.mapped_rows(len(table.rows), method, isolated, ref.seed)
if sampled:
    st.info(f"The table has {len(table.rows):,} rows; {method} maps a seeded sample of {len(rows):,} (the sidebar's "
            f"seed chooses it). PCA and {svc.GIVEN} draw every row.", icon=":material/info:")
params = {**given, **charts.method_settings(knobs, method, len(table.rows) if rows is None else len(rows))}
meta_columns = list(table.meta.columns)
colours = ["(none)"] + meta_columns + [svc.RECALL]
svc.keep_choice("maps.colour", colours, colours[svc.first_index(meta_columns, roles["category"])])
colour_by = knobs.selectbox("Colour by", colours, key="maps.colour", bind="query-params",
                            index=svc.first_index(meta_columns, roles["category"]),
                            help="A column of categories gets a legend of its 11 commonest values and 'other'; "
                                 "a column of numbers a colour bar. Neighbour recall colours each point by the share "
                                 f"of its {svc.TRUST_K} nearest in the vectors that are also its {svc.TRUST_K} "
                                 "nearest on the map: red where the map misplaces it.")
sizes = ["(same size)"] + roles["number"]
svc.keep_choice("maps.size", sizes, sizes[0])
size_by = knobs.selectbox("Size by", sizes, key="maps.size", bind="query-params",
                          help="A column of numbers: the larger the value, the larger the point (2 to 9 px).")
label_choices = ["(row number)"] + roles["text"] + [c for c in meta_columns if c not in roles["text"]]
svc.keep_choice("maps.label", label_choices, label_choices[1 if roles["text"] else 0])
label_by = knobs.selectbox("Labels and search", label_choices, key="maps.label", bind="query-params",
                           index=1 if roles["text"] else 0,
                           help="The column whose values name the points: on the map, in the tooltip, in the "
                                "lists, and what the search reads.")
query = knobs.text_input("Search", key="maps.search", max_chars=200,
                         placeholder="text in the label column", on_change=charts.search_entered,
                         help="Rows whose label holds this text (case ignored) are ringed, counted and framed; "
                              "Enter selects them.")
regex = knobs.toggle("Regular expression", key="maps.regex", bind="query-params")

cluster = knobs.toggle("Cluster labels", key="maps.clusters", bind="query-params",
                       help="HDBSCAN finds dense groups; each is named by the commonest value of the label column "
                            "and its share, or, for a column of free text, by its most distinctive words. Click a "
                            "name on the map to select its cluster.")
cluster_space = "map"
if cluster:
    cluster_space = knobs.radio("Find clusters in", ["map", "vectors"], key="maps.cluster_space", horizontal=True,
                                bind="query-params",
                                format_func={"map": "the map", "vectors": "the vectors"}.get,
                                help="On the map: the groups you see. In the vectors (their top 10 principal "
                                     "components): the groups the data has, which the map may split or merge.")
density = knobs.toggle("Density contours", key="maps.contours", bind="query-params",
                       help="Lines around the densest quarter, half and three quarters of the points: where the "
                            "map is crowded even when the points hide each other.")

view = charts.view_of(ref, columns, label_by, colour_by)
keep = charts.filter_panel(table.meta, roles, view)
mapped = view.subset(rows)
with main:
    top = st.container()  # what the page says about the run; the map is the next element, live or finished
    try:
        live = method == "t-SNE" and charts.live_tsne(top, ref, columns, rows, params, mapped)
        if not live:
            body = st.container()
            coords, extra = charts.computed(body.container(), ref, columns, rows, method, params, len(mapped.ids))
    except svc.MapFailed as err:
        top.error(md_escape(str(err)), icon=":material/error:")
        st.stop()
if live:  # the figures, the selection and the exports wait for the finished map
    with theory():
        charts.theory(method)
    st.stop()
sweep = charts.sweep_panel(knobs, top, ref, columns, rows, method, params, len(mapped.ids))
with body:
    metric = params.get("metric", "euclidean")
    shown, drawn, X = charts.visible(table, mapped, coords, keep)
    X = svc.in_metric(X, metric)  # neighbours, trust and clusters measure as the map did
    found, problem = charts.matches(shown.labels, query, regex)
    if st.session_state.pop(charts.SEARCH_ENTERED, False) and len(found):  # Enter in the search: its matches
        picked.select("maps", (ref, columns, svc.rows_key(rows, keep)), shown.ids, found.tolist())
    if colour_by == svc.RECALL:
        shown = charts.recall_colour(ref, columns, rows, method, params, mapped, shown, coords,
                                     svc.in_metric(table.X[mapped.positions], metric))
    groups = svc.clusters(ref, columns, svc.rows_key(rows, keep), method, tuple(sorted(params.items())), label_by,
                          cluster_space, label_by in roles["text"] and label_by not in roles["category"], drawn,
                          shown.labels, X) if cluster else None
    tools = MapTools("maps", (ref, columns, svc.rows_key(rows, keep)), shown.ids, drawn, labels=shown.labels,
                     label_name=shown.label_name, space=X, where=knobs)
    charts.draw_map(tools, shown, drawn, matches=found, method=method, clusters=groups, isolated=isolated is not None,
                    label_points=label_by not in roles["category"], cluster_space=cluster_space, density=density,
                    sizes=None if size_by not in roles["number"] else table.meta[size_by].to_numpy()[shown.positions],
                    sweep=charts.sweep_for(sweep, params, mapped, shown))
    if problem:
        st.warning(md_escape(problem), icon=":material/search_off:")
    charts.figures(ref, columns, rows, method, params, svc.in_metric(table.X[mapped.positions], metric), coords,
                   len(drawn), extra, found, groups, recall=colour_by == svc.RECALL)
    charts.caption(shown, method, table, keep)

charts.isolate_buttons("maps", (ref, columns), tools, isolated, shown)
with theory():
    charts.theory(method)
tools.panel(charts.selection_summary(shown), file_name="maps-selection.csv")
charts.exports(table, shown, drawn, tools)
tools.compare(f"{method} {charts.settings_text(params)}", what="method or setting")
share.panel("maps", reproduce.lazy(lambda: svc.recipe(ref, columns, method, params, isolated)),
            uploaded=source == "upload", what=f"the {method} map's coordinates")
