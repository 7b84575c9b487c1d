"""Putting a chart on the page: the one place figures reach ``st.plotly_chart``."""

from __future__ import annotations

import streamlit as st

from app.ui.charts import literal


def signature(fig) -> str:
    """A digest of a figure as it would be sent: equal for figures the browser would draw the same."""
    import hashlib

    import plotly.io

    return hashlib.sha1(plotly.io.to_json(fig, validate=False).encode()).hexdigest()


def show(where, fig, **kwargs):
    """``where.plotly_chart(fig)`` with the figure's data strings shown literally (never as HTML)."""
    return (where or st).plotly_chart(literal(fig), **kwargs)
