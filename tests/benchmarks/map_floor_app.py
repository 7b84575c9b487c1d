"""The reference for a map redraw: a seed input and one selectable Plotly scatter, nothing else.

tests/benchmarks/bench_browser.py times a seed change here next to the Home floor: a rerun whose only
work is to send and draw a new map of the Manifolds map's size, built by the app's own chart helpers
(SVG markers with a continuous colour scale, point indices as customdata, box and lasso selection).
What a page's control costs beyond this is the page's own doing.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

from app.ui import charts, plots  # noqa: E402

N_POINTS = 1500

seed = int(st.sidebar.number_input("Random seed", 0, 10**9, 0, key="ref.seed"))
rng = np.random.default_rng(seed)
Y = rng.normal(size=(N_POINTS, 2)).astype(np.float32)
fig = go.Figure(go.Scatter(x=Y[:, 0], y=Y[:, 1], mode="markers", showlegend=False,
                           marker=dict(size=5, color=rng.uniform(size=N_POINTS).astype(np.float32),
                                       colorscale="Viridis"),
                           customdata=np.arange(N_POINTS, dtype=np.int32),
                           hovertemplate="point %{customdata}<extra></extra>"))
st.title("A map, redrawn")
plots.show(st, charts.layout(fig, f"{N_POINTS:,} random points (seed {seed})", 480), key="ref.map",
           on_select="rerun", selection_mode=("points", "box", "lasso"))
