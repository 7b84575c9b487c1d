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
from app.ui import layout, share  # noqa: E402
from app.ui.sidebar import shared_sidebar  # noqa: E402

share.guard_links()  # a link's value is checked before any bound control decodes it (inf, 1e309 raised)
if layout.PRESENT not in st.session_state:  # a link's ?present=1 opens the lab in presentation mode
    st.session_state[layout.PRESENT] = st.query_params.get("present") == "1"
# "auto": open beside the page on a wide screen, collapsed below 768 px (it would cover the page there).
st.set_page_config(
    page_title="Embedding Lab",
    page_icon=":material/scatter_plot:",
    layout="wide",
    initial_sidebar_state="collapsed" if layout.presenting() else "auto",
)
st.html(layout.page_css())

_HERE = Path(__file__).resolve().parent
# One list, the lab's own pages first, then the topics, each named in its title ("Manifolds: locally linear
# embedding"). No section headers: Streamlit writes a sectioned list as a <ul> holding <div>s and <li>s outside
# any list, which screen readers cannot announce as a list (app/GUIDE.md, "Access").
navigation: list = []
for section, specs in pages_by_section().items():
    for p in specs:
        # a title that starts with an acronym keeps its capitals
        title = p.title if section == "Lab" or p.title.split()[0].isupper() else p.title[0].lower() + p.title[1:]
        title = title if section == "Lab" else f"{section}: {title}"
        navigation.append(st.Page(_HERE / p.path, title=title, icon=p.icon, url_path=p.url, default=p.default))
page = st.navigation(navigation, expanded=True)
prefix = next((p.key for p in PAGES if p.url == page.url_path), "home")
layout.mode_and_reset(prefix)
requested = share.link_request()  # what a shared link asks for, read on the session's first run (before the sidebar)
shared_sidebar()
link_notes = st.container()  # above the page: what of the link the page could not take
page.run()
share.report_link(link_notes, requested, prefix)
heap.watch_sessions()  # what a session leaves goes back to the system once it has ended
heap.settle()  # after the page, so what it imported is frozen before Streamlit's after-run collection
