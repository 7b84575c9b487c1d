"""Show what a reader made of a file: summary figures, columns, preview, notices."""

from __future__ import annotations

import streamlit as st

from app.services.reports import describe
from app.ui.text import md_escape


def show_report(result, key: str) -> None:
    rep = describe(result)
    cols = st.columns(len(rep.summary))
    for col, (label, value) in zip(cols, rep.summary.items()):
        col.metric(label, f"{value:,}" if isinstance(value, int) else value)
    for notice in rep.notices:
        st.info(md_escape(notice), icon=":material/info:")
    if len(rep.dropped):
        st.markdown("**Rows left out, and why**")
        st.dataframe(rep.dropped, hide_index=True, key=f"{key}.dropped")
    else:
        st.caption("No row was dropped.")
    left, right = st.columns([1, 2])
    if len(rep.columns):
        left.markdown("**Columns**")
        left.dataframe(rep.columns, hide_index=True, key=f"{key}.columns")
    right.markdown(f"**Preview** (first {len(rep.preview)} rows)")
    right.dataframe(rep.preview, hide_index=True, key=f"{key}.preview")
