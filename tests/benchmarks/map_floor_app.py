"""The reference for a map redraw: a seed input and one lab map (app.ui.map), nothing else.

tests/benchmarks/bench_browser.py times a seed change here next to the Home floor: a rerun whose only
work is to send and draw a new map (``?n=`` points, default 1,500; continuous colour, labels for
the first 300, box selection), aligned to the map on screen and gliding there, as a page's map is.
What a page's control costs beyond this is the page's own doing.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
import streamlit as st  # noqa: E402

from app.ui import map as lab_map  # noqa: E402

n_points = int(st.query_params.get("n", 1500))
seed = int(st.sidebar.number_input("Random seed", 0, 10**9, 0, key="ref.seed"))
rng = np.random.default_rng(seed)
Y = rng.normal(size=(n_points, 2)).astype(np.float32)
st.title("A map, redrawn")
labels = [f"p{i}" if i < 300 else "" for i in range(n_points)]
lab_map.draw(st, Y, key="ref.map", labels=labels, color=lab_map.continuous(rng.uniform(size=n_points), title="value"),
             mode="box", title=f"{n_points:,} random points (seed {seed})", height=480)
