"""Share and reproduce: a link to this view and a download that recomputes it, in the sidebar of every page."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st


def view_link() -> str:
    """This page's address with every setting that lives in the URL (``st.query_params``) as it is now."""
    parts = urlsplit(st.context.url or "")
    query = urlencode(sorted(st.query_params.to_dict().items()))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def panel(page: str, make_zip, *, uploaded: bool = False, what: str = "the arrays shown") -> None:
    """The sidebar's share panel: the link to this view (with a copy button) and the reproducible zip.

    ``make_zip`` is called only when the download is clicked (app.services.reproduce.lazy).
    """
    with st.sidebar.expander("Share and reproduce", icon=":material/share:"):
        st.caption("Link to this view (the copy button is at its right):")
        st.code(view_link(), language=None, wrap_lines=True)
        if uploaded:
            st.caption("The link names your upload by its SHA-1: whoever opens it must upload the same file.")
        st.download_button("Download to reproduce (.zip)", data=make_zip, file_name=f"embedding-lab-{page}.zip",
                           mime="application/zip", key=f"{page}.reproduce", icon=":material/download:",
                           on_click="ignore", width="stretch")
        st.caption(f"The zip holds {what}, the settings and seed, the data's id (or your upload's SHA-1), the "
                   "versions of every library, and reproduce.py, which recomputes the arrays with embedcore and "
                   "compares them with the export.")
