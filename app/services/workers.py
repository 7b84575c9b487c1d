"""Heavy numeric solves in worker processes, so that one session's solve does not hold the others' interpreter.

The server is one Python process: every session's script runs in a thread of it, under one
interpreter lock. A solve that holds that lock (SuperLU's factorisation in scipy's ``splu``, ARPACK's
iterations, scikit-learn's neighbour search, trustworthiness) makes every other session's run wait,
and the second core of the machine idles: measured with 30 sessions moving Manifolds' B, the server
used 0.9 of its two cores while a change took 5 s at the median. Here such a solve is handed to a
worker process and the session's thread waits on it without the lock; the pages keep the lock for
what only they can do (drawing, Streamlit's messages).

Two pools, started on first use from a fork server that has imported numpy, scipy and embedcore
(a worker starts in milliseconds, not seconds): :func:`call` runs on :data:`WORKERS` processes at the
server's own priority, for work a person waits for; ``call(..., ahead=True)`` on one process at a low
priority (nice + 10), for work done ahead that nobody waits for yet, which gives way to the server
and to the first pool. Each worker runs one BLAS thread (app/services/threads.py says why).

``LAB_SOLVE_WORKERS`` sets :data:`WORKERS`; ``0`` solves in the server's own threads, as before this
module (the load benchmark compares the two: tests/benchmarks/bench_load.py). A pool that cannot be
started (no process support) falls back to that as well; a worker that dies (killed, out of memory)
is replaced and the call is tried once more.

The functions the workers run are the ones below without a leading underscore: they take and return
arrays and plain values only, never import Streamlit, and keep per process the little they can
reuse (the data's side of trustworthiness, :class:`embedcore.metrics.DataRanks`, by the digest of the points).
"""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
import sys
import threading
import time
import types
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import numpy as np

#: Worker processes for solves a person waits for (``LAB_SOLVE_WORKERS``; 0: solve in the server's threads).
WORKERS = int(os.environ.get("LAB_SOLVE_WORKERS", str(os.cpu_count() or 1)))
#: How much lower a worker for solves ahead runs (added to its nice value).
AHEAD_NICE = 10

_lock = threading.Lock()
_pools: dict[bool, ProcessPoolExecutor | None] = {}
_in_flight = 0  # calls a person waits for, being solved now


def busy() -> bool:
    """Whether some session is waiting for a solve now (work ahead would only take the cores from it)."""
    return _in_flight > 0


def _start(nice: int) -> None:
    """In each worker: one BLAS / OpenMP thread, and the priority asked for."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    if nice:
        try:
            os.nice(nice)
        except OSError:  # not allowed here: the worker runs at the server's priority
            pass


def _pool(ahead: bool) -> ProcessPoolExecutor | None:
    with _lock:
        if ahead not in _pools:
            try:
                ctx = mp.get_context("forkserver")
                ctx.set_forkserver_preload(["app.services.workers", "embedcore.manifold", "embedcore.metrics"])
                n = 1 if ahead else WORKERS
                pool = ProcessPoolExecutor(n, mp_context=ctx, initializer=_start, initargs=(AHEAD_NICE if ahead else 0,))
                _launch(pool, n)
                _pools[ahead] = pool
            except (OSError, ValueError, NotImplementedError):  # no processes here: solve in the caller's thread
                _pools[ahead] = None
        return _pools[ahead]


def _launch(pool: ProcessPoolExecutor, n: int) -> None:
    """Start the pool's ``n`` processes now. A new process is told to import the parent's ``__main__``, and in a
    script run that is the page Streamlit is running (it installs the script as ``__main__``): each worker would
    run the app. So ``__main__`` is a bare module while they start (one at a time, as many as the pool holds, so
    none starts later, when a task finds no idle worker)."""
    real = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        for f in [pool.submit(time.sleep, 0.2) for _ in range(n)]:
            f.result()
    finally:
        sys.modules["__main__"] = real


def _replace(ahead: bool, broken: ProcessPoolExecutor) -> None:
    with _lock:
        if _pools.get(ahead) is broken:
            del _pools[ahead]
    broken.shutdown(wait=False, cancel_futures=True)


def call(fn, *args, ahead: bool = False):
    """``fn(*args)`` in a worker process (see the module's docstring), waited for without the interpreter lock.

    ``fn`` is a function of this module. Its exceptions reach the caller as they were raised. With no
    workers (:data:`WORKERS` 0, or no process support) it runs here, in the caller's thread.

    >>> call(digest, np.zeros(3)) == digest(np.zeros(3))
    True
    """
    global _in_flight
    if WORKERS <= 0:
        return fn(*args)
    if not ahead:
        with _lock:
            _in_flight += 1
    try:
        return _call(fn, args, ahead)
    finally:
        if not ahead:
            with _lock:
                _in_flight -= 1


def _call(fn, args: tuple, ahead: bool):
    for attempt in (0, 1):
        pool = _pool(ahead)
        if pool is None:
            return fn(*args)
        try:
            return pool.submit(fn, *args).result()
        except BrokenProcessPool:
            _replace(ahead, pool)
            if attempt:
                raise


# ---------------------------------------------------------------- run in the workers


def digest(X: np.ndarray) -> str:
    """A short name of an array's values (what a worker keeps per set of points is filed under it)."""
    a = np.ascontiguousarray(X)
    return hashlib.blake2b(a.tobytes() + str((a.shape, a.dtype.str)).encode(), digest_size=16).hexdigest()


_RANKS: OrderedDict = OrderedDict()
#: Sets of points whose :class:`~embedcore.metrics.DataRanks` a worker keeps.
RANKS_KEPT = 8


def _ranks(name: str, X: np.ndarray):
    from embedcore.metrics import DataRanks

    if name in _RANKS:
        _RANKS.move_to_end(name)
        return _RANKS[name]
    ranks = _RANKS[name] = DataRanks(X)
    while len(_RANKS) > RANKS_KEPT:
        _RANKS.popitem(last=False)
    return ranks


def lle_map(X: np.ndarray, neighbors: np.ndarray, B: int, reg: float, seed: int, k: int | None, name: str):
    """:func:`embedcore.manifold.lle_with_quality` at B (8 bottom eigenvalues), with its trustworthiness at ``k``
    when ``k`` is given (the data's ranks kept under ``name``, :func:`digest` of ``X``)."""
    from embedcore.manifold import lle_with_quality

    ranks = None if k is None else _ranks(name, X)
    return lle_with_quality(X, neighbors, B, reg, random_state=seed, n_eigenvalues=8, quality_k=k, ranks=ranks)


def trust(X: np.ndarray, Y: np.ndarray, k: int, name: str) -> float:
    """Trustworthiness at ``k`` of the map ``Y`` of ``X`` (the data's ranks kept under ``name``)."""
    from embedcore.metrics import trustworthiness

    return float(trustworthiness(X, Y, k, ranks=_ranks(name, X)))


def neighbours(X: np.ndarray, k: int) -> np.ndarray:
    """Each point's ``k`` nearest neighbours, nearest first (:func:`embedcore.manifold.nearest_neighbors`)."""
    from embedcore.manifold import nearest_neighbors

    return nearest_neighbors(X, k)[0]
