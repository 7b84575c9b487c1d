"""Embedding Lab: the frame every page runs inside."""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

# `streamlit run app/streamlit_app.py` puts app/ on the path, not the project root.
_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

import app.services.threads  # noqa: E402,F401  (one BLAS thread per computation)
from app.pages import PAGES, pages_by_section  # noqa: E402
from app.services import heap  # noqa: E402
from app.ui import share  # noqa: E402
from app.ui.sidebar import shared_sidebar  # noqa: E402

st.set_page_config(
    page_title="Embedding Lab",
    page_icon=":material/scatter_plot:",
    layout="wide",
    initial_sidebar_state="expanded",
)

_HERE = Path(__file__).resolve().parent
navigation = {
    section: [
        st.Page(_HERE / p.path, title=p.title, icon=p.icon, url_path=p.url, default=p.default)
        for p in specs
    ]
    for section, specs in pages_by_section().items()
}
page = st.navigation(navigation)
shared_sidebar()
requested = share.link_request()  # what a shared link asks for, read on the session's first run
link_notes = st.container()  # above the page: what of the link the page could not take
page.run()
share.report_link(link_notes, requested, next((p.key for p in PAGES if p.url == page.url_path), "home"))
heap.settle()  # after the page, so what it imported is frozen before Streamlit's after-run collection
