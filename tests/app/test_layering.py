"""Data flows one way: embedcore computes, app/services caches, app/ui draws, a page lays out.

Read from the source, so a page that starts computing (or a chart builder that
starts fitting) fails here before it slows a browser down.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from app.pages import PAGES
from tests.conftest import ROOT

#: What a page may import: Streamlit, the app's own layers, and a little of the standard library.
PAGE_ALLOWED = {"streamlit", "app", "__future__", "json", "time", "math", "datetime", "html"}
#: What a chart builder or widget must not import: it draws what services computed.
UI_FORBIDDEN = {"embedcore", "sklearn", "scipy", "umap", "openTSNE", "gensim", "numba"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _calls(path: Path) -> set[str]:
    """Dotted names of the functions a file calls (``st.plotly_chart``, ``st.cache_data``)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Call, ast.Attribute)):
            target = node.func if isinstance(node, ast.Call) else node
            parts = []
            while isinstance(target, ast.Attribute):
                parts.append(target.attr)
                target = target.value
            if isinstance(target, ast.Name):
                out.add(".".join([target.id, *reversed(parts)]))
    return out


@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_a_page_only_lays_out(spec):
    path = ROOT / "app" / spec.path
    extra = _imports(path) - PAGE_ALLOWED
    assert not extra, f"{spec.path} imports {sorted(extra)}: compute in embedcore, cache in app/services, draw in app/ui"
    calls = _calls(path)
    assert not {c for c in calls if "cache_data" in c or "cache_resource" in c}, f"{spec.path} caches: use app/services"
    assert not {c for c in calls if c.endswith("plotly_chart")}, f"{spec.path} calls plotly_chart: use app.ui.plots.show"


@pytest.mark.parametrize("path", sorted((ROOT / "app" / "ui").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT / "app" / "ui")))
def test_ui_draws_without_computing(path):
    bad = _imports(path) & UI_FORBIDDEN
    assert not bad, f"app/ui/{path.name} imports {sorted(bad)}: it should draw what app/services computed"


def test_only_services_reach_embedcore():
    for path in (ROOT / "app").rglob("*.py"):
        if "services" in path.parts:
            continue
        assert "embedcore" not in _imports(path), f"{path.relative_to(ROOT)} imports embedcore directly"


def test_embedcore_does_not_draw():
    """embedcore may read plotly's bundled tables (plotly.data), never draw or reach the app."""
    for path in (ROOT / "embedcore").rglob("*.py"):
        assert not _imports(path) & {"streamlit", "app"}, path
        drawing = {c for c in _calls(path) if c.startswith(("go.", "px.", "plotly.graph_objects", "plotly.express"))}
        assert not drawing, f"{path.relative_to(ROOT)} draws: {sorted(drawing)}"
