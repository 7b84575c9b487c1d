"""The shared sidebar and the per-page data-source picker."""

from __future__ import annotations

import streamlit as st

from app.services import data as data_service
from app.ui.share import link_line, name_upload_in_link
from app.ui.text import md_escape

UPLOAD_TYPES = ["csv", "tsv", "tab", "txt", "npy", "vec", "w2v", "parquet", "jsonl", "ndjson", "xlsx", "xlsm", "xls", "ods"]
SEED_MAX = 2**31 - 1


def _sync_seed_to_url() -> None:
    st.query_params["seed"] = str(st.session_state["global.seed"])
    st.session_state.pop("share.seed_problem", None)


def link_seed(text: str | None) -> tuple[int, str | None]:
    """The seed a link asks for, or 0 and the sentence saying why it could not be used."""
    if text is None:
        return 0, None
    try:
        seed = int(str(text).strip())
    except ValueError:
        seed = None
    if seed is not None and 0 <= seed <= SEED_MAX:
        return seed, None
    return 0, link_line("seed", text, f"0 is used (a whole number from 0 to {SEED_MAX:,})")[:-len(" is used.")] + "."


def shared_sidebar() -> None:
    """Seed and upload, shown on every page."""
    if "global.seed" not in st.session_state:
        seed, problem = link_seed(st.query_params.get("seed"))
        st.session_state["global.seed"] = seed
        if problem:
            st.session_state["share.seed_problem"] = problem
            st.query_params["seed"] = str(seed)
    with st.sidebar:
        if st.session_state.get("share.seed_problem"):
            st.warning(md_escape(st.session_state["share.seed_problem"]), icon=":material/link_off:")
        st.number_input(
            "Random seed",
            min_value=0,
            max_value=SEED_MAX,
            step=1,
            key="global.seed",
            on_change=_sync_seed_to_url,
            help="Every random choice in the lab (hyperplanes, samples, initialisations) "
            "follows this seed: the same seed redraws the same pictures.",
        )
        st.toggle(
            "Align redrawn maps",
            value=True,
            key="global.align_maps",
            bind="query-params",
            help="When a setting redraws a map of the same items, turn, mirror, scale and shift the new map to "
            "fit the one on screen (Procrustes) before the points glide there, so what moves is what the setting "
            "changed. Off: each map is drawn as its method returned it.",
        )
        files = st.file_uploader(
            "Your data",
            type=UPLOAD_TYPES,
            accept_multiple_files=True,
            key="global.upload",
            help="Upload one file (or an Embedding Projector vectors + metadata pair): CSV/TSV (any separator, "
            "decimal commas), a workbook's first sheet (.xlsx, .xls, .ods), Parquet, .npy, word vectors. "
            "The Data page shows how it was read; vectors are explored on Maps (your embeddings), and every page "
            "that can use it lists it as a data source.",
        )
        # Hash the bytes once per upload, not on every rerun: the uploader's file ids say when it changed.
        ids = tuple(getattr(f, "file_id", f.name) for f in files or [])
        if st.session_state.get("global.upload_ids") != ids:
            st.session_state["global.upload_ids"] = ids
            st.session_state["global.upload_obj"] = data_service.make_upload(files)


def data_source(kind: str, page: str, default: str | None = None, allowed: list[str] | None = None,
                usable=None, more: tuple[str, ...] = (), label: str = "Data set"):
    """A sidebar select box of bundled data sets of ``kind`` plus the upload, when the page can use it.

    Returns ``(source_id, data)``. An upload this page cannot read as ``kind``
    is not offered, and one line says why; one that reads but looks like
    another kind of data is offered without being chosen. A new upload that
    suits the page is chosen once, as the person most likely wants to see it. ``more`` names further kinds of
    bundled data listed after those of ``kind`` (an upload is still read as ``kind``). ``label`` names the box (a
    page whose sections do not all use the data set says which do).
    """
    options = [d for k in (kind, *more) for d in data_service.datasets_of_kind(k) if allowed is None or d.id in allowed]
    ids = [d.id for d in options]
    titles = {d.id: d.title for d in options}
    upload = data_service.current_upload()
    seed = data_service.seed()
    result = None
    if upload is not None:
        result, error = data_service.parse_upload(kind, upload.digest, upload, seed, progress=True)
        if error is None and usable is not None:
            error = usable(result)
        label = md_escape(upload.label)
        if error is not None:
            st.caption(f":material/info: Your upload ({label}) is not used on this page: {md_escape(error)}")
        else:
            ids.append("upload")
            titles["upload"] = f"Your upload: {upload.label}"
    key = f"{page}.dataset"
    if key in st.session_state and st.session_state[key] not in ids:
        del st.session_state[key]
    # A new upload that suits this page is what the person wants to see: switch to it once.
    seen = f"{page}.seen_upload"
    if "upload" in ids and st.session_state.get(seen) != upload.digest:
        if upload.kind in data_service.ACCEPTS[kind]:
            st.session_state[key] = "upload"
    st.session_state[seen] = None if upload is None else upload.digest
    if key not in st.session_state:
        st.session_state[key] = default or ids[0]
    # the page's default is also the widget's own: a link naming it is kept, and Reset comes back to it
    first = ids.index(default) if default in ids else 0
    chosen = st.sidebar.selectbox(label, ids, index=first, format_func=titles.get, key=key, bind="query-params")
    if "upload" in ids and chosen != "upload" and upload.kind not in data_service.ACCEPTS[kind]:
        what = data_service.KIND_LABELS[upload.kind].split(" (")[0].lower()
        what = "a table" if what == "table" else what  # "looks like vectors", "looks like a table"
        st.caption(f":material/info: Your upload ({md_escape(upload.label)}) looks like {what}, so this page keeps "
                   "its own data; pick it under Data set to use it here anyway.")
    name_upload_in_link(chosen, None if upload is None else upload.digest)
    if chosen == "upload":
        for notice in result.notices:
            st.sidebar.info(md_escape(notice))
        return "upload", result
    return chosen, data_service.bundled(chosen, seed)
