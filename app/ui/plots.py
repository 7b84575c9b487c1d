"""Putting a chart on the page: the one place figures reach ``st.plotly_chart``."""

from __future__ import annotations

import streamlit as st

from app.ui.charts import literal


def show(where, fig, **kwargs):
    """``where.plotly_chart(fig)`` with the figure's data strings shown literally (never as HTML)."""
    return (where or st).plotly_chart(literal(fig), **kwargs)
