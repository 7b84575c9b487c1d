"""A one-map app for the browser tests of the lab's map (tests/e2e/test_map_browser.py).

``streamlit run tests/e2e/map_app.py`` draws ``points(n, turn)`` with :func:`app.ui.map.draw` under the key
``fixture.map``; the query parameters choose ``n`` (default 300) and the drag ``mode`` (box, lasso,
click, pan; default box), and ``color=category`` colours the points by the cluster they were drawn from
(:func:`clusters`, a legend whose entries hide them, a mark per cluster) instead of by depth. A "Turn"
slider redraws the same items turned, scaled, shifted and bent a little (so the aligned map is not simply
the previous one); an "Align redrawn maps" checkbox is the sidebar's switch (session key
``global.align_maps``). The last selection the map sent comes back into the page as JSON text (element
key ``fixture_event``) and is drawn as the map's selection.

The test imports :func:`points` and :func:`labels` to know what was drawn.
"""

from __future__ import annotations

import numpy as np

KEY = "fixture.map"
SYLLABLES = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "vo", "pe", "zu", "ha", "do"]


def base(n: int) -> np.ndarray:
    """n points in a few clusters of different spread, plus a sparse halo (isolated points to click)."""
    rng = np.random.default_rng(2026)
    centres = np.array([[0.0, 0.0], [6.0, 1.5], [-4.0, 4.0], [2.0, -5.0]])
    k = rng.integers(0, len(centres), n)
    xy = centres[k] + rng.normal(size=(n, 2)) * np.array([1.6, 0.9, 1.2, 0.7])[k, None]
    halo = rng.random(n) < 0.08
    xy[halo] = rng.uniform([-12, -9], [12, 9], size=(halo.sum(), 2))
    return xy


def points(n: int, turn: int) -> np.ndarray:
    """The points at slider position ``turn``: bent by ``0.25 turn``, turned by 0.7 rad, scaled by 1.5 and
    shifted by (3, -2) per step."""
    xy = base(n)
    bent = xy + 0.25 * turn * np.column_stack([np.sin(xy[:, 1]), np.cos(0.5 * xy[:, 0])])
    a = 0.7 * turn
    rot = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
    return 1.5**turn * bent @ rot + np.array([3.0, -2.0]) * turn


CLUSTERS = ["west", "east", "north", "south"]


def clusters(n: int) -> np.ndarray:
    """The cluster each point of :func:`base` was drawn from (0 to 3, in :data:`CLUSTERS`' order; the halo's
    points keep theirs)."""
    return np.random.default_rng(2026).integers(0, len(CLUSTERS), n)


def labels(n: int) -> list[str]:
    """A word-like label per point, of 2 to 4 syllables, unique (its row number at the end)."""
    rng = np.random.default_rng(7)
    return ["".join(rng.choice(SYLLABLES, rng.integers(2, 5))) + str(i) for i in range(n)]


def depths(n: int) -> np.ndarray:
    """A number per point, its colour and a tooltip field (the tooltip reads the colour's own numbers)."""
    return np.random.default_rng(11).gamma(2.0, 1.7, n)


if __name__ == "__main__":  # what `streamlit run` executes
    import json

    import streamlit as st

    from app.ui import map as labmap

    st.set_page_config(page_title="Map fixture", layout="wide")
    n = int(st.query_params.get("n", 300))
    mode = st.query_params.get("mode", "box")
    by_cluster = st.query_params.get("color") == "category"
    st.title("Map fixture")
    st.checkbox("Align redrawn maps", value=True, key=labmap.ALIGN_KEY)
    turn = st.slider("Turn", 0, 6, 0, key="fixture.turn")

    def keep(event: dict) -> None:
        st.session_state["fixture.event"] = event

    event = st.session_state.get("fixture.event")
    names = labels(n)
    depth = depths(n)
    labmap.draw(None, points(n, turn), key=KEY, labels=names, label_priority=-np.arange(n, dtype=float),
                color=labmap.categories(np.array(CLUSTERS)[clusters(n)], names=CLUSTERS, title="cluster") if by_cluster
                else labmap.continuous(depth, title="depth"), hover={"row": range(n), "depth": depth}, mode=mode, on_select=keep, title=f"{n:,} points, turn {turn}",
                x_title="x", y_title="y", selected=(event or {}).get("indices", []), height=520)
    event = st.session_state.get("fixture.event")
    with st.container(key="fixture_event"):
        st.text(json.dumps(None if event is None else {"kind": event["kind"], "indices": event["indices"]}))
