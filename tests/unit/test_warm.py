"""Compiling ahead: once per process, in the background, and off when LAB_WARM=0."""

from __future__ import annotations

import threading

from app.services import ahead


def test_a_server_compiles_umap_once_in_the_background_unless_told_not_to(monkeypatch):
    import embedcore.maps

    calls = []
    monkeypatch.setattr(embedcore.maps, "warm_umap", lambda: calls.append(threading.current_thread().name))
    monkeypatch.setattr(ahead, "_warming", [])
    monkeypatch.setenv(ahead.WARM_ENV, "0")
    assert ahead.warm_compiled() is None and calls == []
    monkeypatch.setenv(ahead.WARM_ENV, "1")
    first = ahead.warm_compiled()
    assert ahead.warm_compiled() is first  # a rerun does not compile again
    first.result(timeout=60)
    assert len(calls) == 1 and calls[0].startswith("lab-warm") and calls[0] != threading.current_thread().name


def test_umap_s_compiled_functions_are_kept_on_disk():
    """Every numba function of umap-learn and pynndescent is switched to numba's on-disk cache, so a fresh process
    loads what an earlier one compiled (a fresh server's first UMAP of 3,000 x 64: 22.7 s without, 11.2 s with,
    9.2 s warm)."""
    import umap.layouts
    import umap.umap_
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    from embedcore.maps import cache_compiled

    cache_compiled()
    compiled = [f for m in (umap.layouts, umap.umap_) for f in vars(m).values() if isinstance(f, Dispatcher)]
    assert len(compiled) > 10 and not [f for f in compiled if isinstance(f._cache, NullCache)]
    assert cache_compiled() == 0  # switched once: nothing left to switch
