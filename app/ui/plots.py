"""Putting a chart on the page: the one place figures reach ``st.plotly_chart``."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from app.ui.charts import literal


def signature(fig) -> str:
    """A digest of a figure as it would be sent: equal for figures the browser would draw the same."""
    import hashlib

    import plotly.io

    return hashlib.sha1(plotly.io.to_json(fig, validate=False).encode()).hexdigest()


def show(where, fig, **kwargs):
    """``where.plotly_chart(fig)`` with the figure's data strings shown literally (never as HTML); in presentation
    mode the page's main chart is drawn taller (:func:`app.ui.layout.main_height`) and every chart's type larger."""
    from app.ui.layout import main_height, presenting

    default = fig.layout.height or 450  # Plotly's own default height
    height = main_height(kwargs.get("key"), default)
    if height != default:
        fig = go.Figure(fig).update_layout(height=height)  # a copy: the figure may be a cached one
    if presenting():  # type for the back of a room, as the canvas components scale theirs
        title = fig.layout.title.font.size or 17  # a title keeps its size: a longer one would not fit its column
        fig = go.Figure(fig).update_layout(font_size=16, title_font_size=title)
    return (where or st).plotly_chart(literal(fig), **kwargs)
