"""app.services.heap: the after-run collection only walks what a run made."""

import gc
import sys

import pytest

from app.services import heap


@pytest.fixture
def thawed(monkeypatch):
    """Nothing frozen, and settle() as on a fresh server (earlier page runs in this process may have settled)."""
    gc.unfreeze()
    monkeypatch.setattr(heap, "_modules_seen", 0)
    yield
    gc.unfreeze()


def test_settle_freezes_only_after_new_imports(thawed, tmp_path, monkeypatch):
    heap.settle()
    assert gc.get_freeze_count() > 0
    frozen = gc.get_freeze_count()
    assert heap.settle() is False  # nothing imported since: nothing more frozen
    assert gc.get_freeze_count() == frozen

    (tmp_path / "lab_fresh_module.py").write_text("TABLE = [[i] for i in range(10_000)]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import lab_fresh_module  # noqa: F401

    assert heap.settle() is True
    # the module's 10,000 lists are frozen (give or take a few objects other threads freed meanwhile: 9,995 once)
    assert gc.get_freeze_count() >= frozen + 9_000
    sys.modules.pop("lab_fresh_module")


def test_objects_made_after_settling_stay_collectable(thawed):
    heap.settle()

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle only the collector can free
    del a, b
    assert gc.collect() >= 2


def test_a_full_collection_walks_far_fewer_objects_once_settled(thawed):
    import plotly.graph_objects  # noqa: F401  (a large module tree, as the pages load)
    import sklearn.manifold  # noqa: F401

    walked_before = len(gc.get_objects())  # what gc.collect(2) walks: generations 0-2, not the frozen ones
    heap.settle()
    assert len(gc.get_objects()) < walked_before / 10
