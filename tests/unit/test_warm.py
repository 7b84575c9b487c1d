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
