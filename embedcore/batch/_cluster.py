"""Running batch steps on Dask: the cluster, broadcasting a model, tasks with progress, tree sums.

Every batch step is a list of independent tasks, one per partition of the
input, whose small results are either handled as they finish (the sketch
step writes its manifest) or summed by a fixed tree (the counting steps).
Tasks that fail on a worker are retried (``retries``); a mistake in the data
is not a failure to retry, so tasks return it as a :class:`_Refusal` and the
driver raises it as a :class:`BatchError` naming the partition.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import reduce, wraps
from operator import add
from typing import Any

__all__ = ["BatchError", "cluster", "versions", "let_go"]


from ..exceptions import BatchError  # noqa: E402  (one error family with embedcore.DataError)


class _Refusal:
    """A data mistake found on a worker, carried back as a value (retrying it would not help)."""

    def __init__(self, message: str):
        self.message = message


def let_go(client, futures) -> None:
    """Cancel the futures that have not finished (a run interrupted or failed part-way); those that have are
    released when the last reference to them goes. Cancelling a finished future can trip the scheduler
    (distributed 2026.8 asserts in its cancel handler and drops the client's stream)."""
    pending = [f for f in futures if not f.done()]
    if pending:
        client.cancel(pending)


def refusals(fn: Callable) -> Callable:
    """Wrap a task so that a :class:`BatchError` comes back as a value, not as a failed task.

    A refusal given as an argument (from the task before) is passed on unchanged.
    """

    @wraps(fn)
    def task(*args, **kwargs):
        for a in args:
            if isinstance(a, _Refusal):
                return a
        try:
            return fn(*args, **kwargs)
        except BatchError as e:
            return _Refusal(str(e))

    return task


def _accept(value):
    if isinstance(value, _Refusal):
        raise BatchError(value.message)
    return value


@contextmanager
def cluster(scheduler: str | None = None, *, workers: int | None = None, threads_per_worker: int = 1,
            processes: bool = True, memory_limit: str | float = "auto", quiet: bool = False,
            timeout: str = "20s") -> Iterator:
    """A ``distributed.Client``: on the scheduler at ``scheduler``, or on a LocalCluster of this machine.

    Parameters
    ----------
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``). Its
        workers need this package installed and must see the input and
        output paths (a shared file system).
    workers : int, optional
        Workers of the LocalCluster; default one per core.
    threads_per_worker : int, default=1
        One thread per worker keeps a task on one core, so workers scale
        the way cores do.
    processes : bool, default=True
        Workers in their own processes (no shared interpreter lock); False
        runs them as threads of this process, which starts faster.
    memory_limit : str or float, default="auto"
        Per worker, as LocalCluster takes it ("auto" splits the machine's memory).
    quiet : bool, default=False
        Silence the cluster's own log messages (the command line does).
    timeout : str, default="20s"
        How long to try reaching ``scheduler``.

    Raises
    ------
    BatchError
        when no scheduler answers at ``scheduler``.
    """
    from distributed import Client, LocalCluster

    level = logging.CRITICAL if quiet else logging.WARNING
    logger = logging.getLogger("distributed")
    before = logger.level
    if quiet:
        logger.setLevel(level)
    try:
        if scheduler:
            try:
                client = Client(scheduler, timeout=timeout)
            except (OSError, TimeoutError) as e:
                raise BatchError(f"No Dask scheduler answers at {scheduler} ({type(e).__name__}); start one with "
                                 "`dask scheduler` and workers with `dask worker ADDRESS`, or leave out "
                                 "--scheduler to use this machine.") from None
            with client:
                yield client
            return
        # a batch job has the machine to itself: one worker per core unless told otherwise
        n = int(workers) if workers else (os.cpu_count() or 1)
        if n < 1:
            raise BatchError(f"workers must be at least 1, got {workers}.")
        with LocalCluster(n_workers=n, threads_per_worker=threads_per_worker, processes=processes,
                          memory_limit=memory_limit, dashboard_address=":0", silence_logs=level) as local:
            with Client(local) as client:
                yield client
    finally:
        logger.setLevel(before)


def current_client(client=None):
    """``client``, or the Dask client opened most recently in this process."""
    if client is not None:
        return client
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        raise BatchError("No Dask client: open one first, e.g. `with embedcore.batch.cluster() as client:`.") from None


def broadcast(client, obj):
    """Send ``obj`` to every worker once; tasks take the returned future instead of a copy each."""
    return client.scatter(obj, broadcast=True, hash=False)


class Progress:
    """A one-line text bar on stderr: ``sketch [#######.....] 7/12 partitions``."""

    def __init__(self, total: int, label: str, enabled: bool = True, unit: str = "partitions"):
        self.total, self.label, self.unit, self.done = total, label, unit, 0
        self.enabled = enabled and total > 0
        self.start = time.perf_counter()
        self._draw()

    def update(self, n: int = 1) -> None:
        self.done += n
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / self.total)
        line = (f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {self.unit}"
                f" {time.perf_counter() - self.start:6.1f}s")
        sys.stderr.write(line + ("\n" if self.done >= self.total else ""))
        sys.stderr.flush()


def run_tasks(client, tasks: Sequence, *, retries: int, label: str, progress: bool,
              on_result: Callable[[int, Any], None]) -> None:
    """Compute delayed ``tasks``; call ``on_result(position, value)`` as each one finishes.

    A task that still fails after ``retries`` attempts raises here, and the
    other tasks are cancelled; a refusal raises :class:`BatchError`.
    """
    from distributed import as_completed

    futures = client.compute(list(tasks), retries=retries)
    position = {f.key: i for i, f in enumerate(futures)}
    bar = Progress(len(futures), label, progress)
    try:
        for fut in as_completed(futures):
            on_result(position[fut.key], _accept(fut.result()))
            bar.update()
    finally:
        let_go(client, futures)


def tree_sum(client, tasks: Sequence, *, retries: int, label: str, progress: bool,
             combine: Callable[..., Any] | None = None, split_every: int = 8):
    """Sum the results of delayed ``tasks`` by a fixed tree of ``split_every``-way combines.

    The tree follows the tasks' order, never the order they finish in, so
    floating-point sums come out the same on every run. A partial result is
    released as soon as its combine has run, and only the total travels to
    this process: a small check per partition reports progress and stops the
    sum at the first refusal.
    """
    from distributed import as_completed

    if not tasks:
        raise BatchError("There is nothing to sum: the input has no partitions.")
    combine = combine or _add_all
    level = client.compute(list(tasks), retries=retries)
    watched = as_completed([client.submit(_refusal_message, f, pure=False) for f in level])
    while len(level) > 1:
        level = [client.submit(_combine_checked, combine, *level[i: i + split_every], retries=retries, pure=False)
                 for i in range(0, len(level), split_every)]
    root = level[0]
    del level
    bar = Progress(len(tasks), label, progress)
    try:
        for flag in watched:
            message = flag.result()  # raises a partition's error
            if message is not None:
                raise BatchError(message)
            bar.update()
        return _accept(root.result())
    finally:
        let_go(client, [root])


def _refusal_message(value) -> str | None:
    return value.message if isinstance(value, _Refusal) else None


def _add_all(*parts):
    return reduce(add, parts)


def _combine_checked(combine, *parts):
    for p in parts:
        if isinstance(p, _Refusal):
            return p
    return combine(*parts)


def versions() -> dict[str, str]:
    """Versions of this package and of every library that shapes a batch result (for manifests)."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": sys.version.split()[0]}
    for name in ("embedding-lab", "numpy", "scipy", "pandas", "pyarrow", "scikit-learn", "dask", "distributed"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out
