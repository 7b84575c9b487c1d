"""Work done ahead: what a person is likely to ask for next, computed in the background while they look.

A slider stepped with the arrow keys asks for its neighbouring values one after another. A page can
hand those to an :class:`Ahead`: one thread, at a low priority, computes them in the order given, so
the next step finds its result cached instead of computing it while the person waits. A new plan
drops the jobs of the last one that have not started (the person moved elsewhere); a job already
running finishes. The thread is shared by every session of the server.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

import streamlit as st


def low_priority() -> None:
    """Run the calling thread at a low priority (nice + 10 on Linux): work nobody waits for yet gives way to the
    server's runs and to the browser. At 20,000 points on Manifolds, where four solves ahead take 2.4 s of a
    core, this took the slowest step of B in twelve from 0.78 s to 0.29 s."""
    try:
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + 10))
    except (AttributeError, OSError):  # no per-thread priority on this system: the thread runs as it is
        pass


def pool(name: str) -> ThreadPoolExecutor:
    """One thread at a low priority (:func:`low_priority`), its threads named ``name``."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix=name, initializer=low_priority)


class Ahead:
    """A plan of jobs run one at a time on a low-priority thread; each new plan replaces the jobs not started.

    >>> ahead = Ahead("doc-ahead")
    >>> done = []
    >>> ahead.plan([lambda: done.append(1), lambda: done.append(2)])
    >>> ahead.idle()
    >>> done
    [1, 2]
    """

    def __init__(self, name: str):
        self.pool = pool(name)
        self._queued: list[Future] = []
        self._lock = threading.Lock()

    def plan(self, jobs: Iterable[Callable[[], object]]) -> None:
        """Run ``jobs`` in this order, after the job now running; the last plan's jobs not started are dropped.
        A job's exception stays in its future: work ahead that fails is simply not there when asked for."""
        with self._lock:
            for job in self._queued:
                job.cancel()
            self._queued = [self.pool.submit(job) for job in jobs]

    def idle(self, timeout: float | None = None) -> None:
        """Wait until every job handed over so far has ended (tests; a page never waits for work ahead)."""
        self.pool.submit(lambda: None).result(timeout)


def moved(state_key: str, data, **values: float) -> tuple[str, float] | None:
    """Which of the sliders ``values`` (name: value) moved since this session's last call under ``state_key`` with
    the same ``data``, and by how much (the new value less the old: +1 or -1 for one step of an integer slider, more
    for a jump such as PageUp): the first that changed, or None (a first run, new data, or none of them moved).
    Records ``values`` for the next call."""
    last = st.session_state.get(state_key)
    st.session_state[state_key] = (data, values)
    if last is None or last[0] != data:
        return None
    return next(((name, v - last[1][name]) for name, v in values.items()
                 if name in last[1] and v != last[1][name]), None)


#: Set to 0 to skip compiling ahead (test processes and servers, most of which never map by UMAP).
WARM_ENV = "LAB_WARM"
_warming: list[Future] = []
_warm_lock = threading.Lock()


def warm_compiled() -> Future | None:
    """Bring UMAP in once per server process, on a low-priority thread (:func:`embedcore.maps.warm_umap`: its
    numba functions loaded from numba's disk cache, or compiled and kept there), so the first UMAP a person asks
    for costs what every later one does: compiling took 15-40 s of the first UMAP of a process, importing about
    2 s. The Maps page asks for it when opened. The environment variable ``LAB_WARM=0`` turns it off. Returns
    the work's future (None when turned off)."""
    if os.environ.get(WARM_ENV, "1") == "0":
        return None
    with _warm_lock:
        if not _warming:
            from embedcore.maps import warm_umap

            _warming.append(pool("lab-warm").submit(warm_umap))
        return _warming[0]
