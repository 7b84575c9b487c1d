from __future__ import annotations

import json

import os
from pathlib import Path

import pytest

# Two test workers share two cores: a multi-threaded BLAS in each oversubscribes them, and chained small
# products (an optimiser's steps, a QR per block) wait on each other (tests/unit/test_foundations.py took 70 s
# with OpenBLAS's default threads at load 7, 14 s with one). The server limits itself the same way
# (app/services/threads.py); the library leaves the choice to its caller.
for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
# The app compiles UMAP's numba functions ahead at start (app/services/ahead.py): half a minute of a core in
# every test process and test server, most of which never map by UMAP. Off here; tests/benchmarks/bench_maps.py
# measures what it gives a fresh server.
os.environ.setdefault("LAB_WARM", "0")
from threadpoolctl import threadpool_limits  # noqa: E402

_BLAS_LIMIT = threadpool_limits(limits=1, user_api="blas")

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app" / "streamlit_app.py"
ARTIFACTS = ROOT / "tests" / ".artifacts"


@pytest.fixture(autouse=True, scope="session")
def _run_from_root():
    # AppTest and the server read .streamlit/config.toml from the working directory.
    os.chdir(ROOT)


@pytest.fixture(autouse=True)
def _maps_keep_their_arrays():
    # AppTest has no browser to hold the long arrays a map sends once: the app keeps them here for the tests' helpers
    from app.ui import map as lab_map

    lab_map.TEXT_OF = {}
    yield
    lab_map.TEXT_OF = None


def open_page(path: str, timeout: float = 120):
    """An AppTest of the whole app, switched to one page and run."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=timeout)
    # The app shows only an error's type to visitors; a failing test should say what went wrong.
    from streamlit import config

    config.set_option("client.showErrorDetails", "full")
    at.run()
    if not path.endswith("home.py"):
        at.switch_page(path).run()
    return at


def chart_specs(at) -> list[str]:
    """The JSON of every Plotly chart, lab bar chart, line chart and heatmap on the page, to compare before and
    after a change."""
    from tests.app.maps import BARS, HEATMAP, LINES, _walk

    return [el.proto.spec for el in at.get("plotly_chart")] + [
        el.proto.json for name in (BARS, HEATMAP, LINES) for el in _walk(at._tree, name)]


def metric(at, label: str) -> str:
    """The shown value of the metric whose label is (or starts with) ``label``."""
    return next(m.value for m in at.metric if m.label == label or m.label.startswith(label))


def open_tab(at, key: str, label: str, timeout: float = 120):
    """Open the tab ``label`` of the lazy tab group ``key`` (hidden tabs run nothing) and run."""
    at.session_state[key] = label
    at.run(timeout=timeout)
    return at


def assert_clean(at) -> None:
    """No exception and no error message on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def table_with(at, column: str):
    """The shown table with this column (AppTest does not keep a dataframe's key)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def tables_holding(at, columns) -> list:
    """Every shown table that holds all of ``columns``, in page order."""
    return [d.value for d in at.dataframe if set(columns) <= set(d.value.columns)]


def table_holding(at, columns, which: int = 0):
    """The ``which``-th shown table that holds all of ``columns``."""
    found = tables_holding(at, columns)
    assert len(found) > which, f"no table with {tuple(columns)} (found {len(found)})"
    return found[which]


def caption_starting(at, start: str) -> str:
    return next(c.value for c in at.caption if c.value.startswith(start))
