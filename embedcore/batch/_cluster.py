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

__all__ = ["BatchError", "SchedulerError", "cluster", "check_scheduler", "versions", "let_go", "bounded_sum"]


from ..exceptions import BatchError


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


def check_setting(name: str, value, *, integer: bool = False, low: float | None = None, open_low: bool = False,
                  none: bool = False, choices: tuple | None = None, flag: bool = False) -> None:
    """Refuse a setting outside what the estimator accepts, with one sentence saying what it must be."""
    from numbers import Integral, Real

    if value is None and none:
        return
    if flag:
        ok, what = isinstance(value, (bool, np_bool())), "True or False"
    elif choices is not None:
        ok, what = isinstance(value, str) and value in choices, "one of " + ", ".join(map(repr, choices))
    else:
        kind = Integral if integer else Real
        ok = isinstance(value, kind) and not isinstance(value, bool)
        if ok and not integer:
            import math

            ok = math.isfinite(float(value))
        if ok and low is not None:
            ok = value > low if open_low else value >= low
        what = ("a whole number" if integer else "a number") + (
            "" if low is None else f" {'>' if open_low else '>='} {low:g}")
    if not ok:
        raise BatchError(f"{name} must be {what}{' or None' if none else ''}, got {value!r}.")


def np_bool():
    import numpy as np

    return np.bool_


def _accept(value):
    if isinstance(value, _Refusal):
        raise BatchError(value.message)
    return value


class SchedulerError(BatchError):
    """No Dask scheduler could be reached at the address given (the command line exits with status 2).

    Examples
    --------
    >>> try:
    ...     check_scheduler("localhost")
    ... except SchedulerError as err:
    ...     print(err, isinstance(err, BatchError))
    localhost is not a scheduler address; give tcp://HOST:PORT. True
    """


def _probe(address: str, timeout: float):
    """Ask ``address`` who it is over Dask's own protocol; the reply, or the exception that stopped it."""
    import asyncio

    from distributed.comm import connect

    async def ask():
        comm = await connect(address, timeout=timeout, handshake_overrides={})
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    async def bounded():
        return await asyncio.wait_for(ask(), timeout)

    try:
        return asyncio.run(bounded())
    except BaseException as e:
        return e


def check_scheduler(address: str, timeout: float = 5.0) -> None:
    """Raise :class:`SchedulerError` unless a Dask scheduler answers at ``address`` within about ``timeout`` s.

    A TCP address is first tried with a plain socket (nothing listening is
    known at once); then a Dask handshake and an ``identity`` request must
    get a scheduler's reply. Whatever else answers (a web server, a Dask
    worker, a closed connection) is named in one sentence; nothing it sends
    can raise here.

    Examples
    --------
    >>> import socket
    >>> from distributed import LocalCluster
    >>> with LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None) as local:
    ...     print(check_scheduler(local.scheduler_address))  # a scheduler answers: nothing to say
    None
    >>> free = socket.socket()
    >>> free.bind(("127.0.0.1", 0))
    >>> port = free.getsockname()[1]
    >>> free.close()  # now nothing listens on that port
    >>> check_scheduler(f"tcp://127.0.0.1:{port}", timeout=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    embedcore.batch._cluster.SchedulerError: No Dask scheduler answers at tcp://127.0.0.1:... (Connection refused); \
start one with `dask scheduler` and workers with `dask worker ADDRESS`, or leave out --scheduler to use this machine.
    """
    import socket
    import threading

    from distributed.comm.addressing import parse_address, parse_host_port

    hint = ("start one with `dask scheduler` and workers with `dask worker ADDRESS`, or leave out --scheduler to use "
            "this machine")
    try:
        scheme, loc = parse_address(address)
        host, port = parse_host_port(loc) if scheme in ("tcp", "tls") else (None, None)
    except (ValueError, TypeError):
        raise SchedulerError(f"{address} is not a scheduler address; give tcp://HOST:PORT.") from None
    if scheme == "tcp":
        if port is None:
            raise SchedulerError(f"{address} has no port; give tcp://HOST:PORT (a scheduler listens on 8786).")
        try:
            sock = socket.create_connection((host, int(port)), timeout=min(timeout, 3.0))
        except OSError as e:
            raise SchedulerError(f"No Dask scheduler answers at {address} ({e.strerror or type(e).__name__}); "
                                 f"{hint}.") from None
        with sock:  # a Dask server speaks first: 8 bytes, the length of its handshake's header
            first, closed = b"", False
            try:
                while len(first) < 8:
                    got = sock.recv(8 - len(first))
                    if not got:
                        closed = True
                        break
                    first += got
            except OSError:
                pass
        if len(first) < 8 or int.from_bytes(first, "little") > 1 << 16:
            said = first.split(b"\r")[0].split(b"\n")[0].decode("ascii", "replace")
            how = (f"it sent {said!r}" if said and said.isprintable() else "it sent other bytes" if first
                   else "it closed the connection" if closed else "it said nothing")
            raise SchedulerError(f"Something listens at {address} but it is not a Dask scheduler ({how} instead of "
                                 f"a Dask handshake within {min(timeout, 3.0):g} s); check the address and port.")
    box: list = []
    t = threading.Thread(target=lambda: box.append(_probe(address, timeout)), daemon=True)
    t.start()
    t.join(timeout + 2.0)
    reply = box[0] if box else TimeoutError()
    if isinstance(reply, dict) and reply.get("type") == "Scheduler":
        return
    if isinstance(reply, dict):
        raise SchedulerError(f"{address} is a Dask {reply.get('type', 'service')}, not a scheduler; give the "
                             "scheduler's address.")
    if isinstance(reply, (TimeoutError, asyncio_timeout())):
        raise SchedulerError(f"Something listens at {address} but does not answer as a Dask scheduler within "
                             f"{timeout:g} s; check the address and port ({hint}).")
    raise SchedulerError(f"Something listens at {address} but it is not a Dask scheduler (it answered in another "
                         f"protocol: {type(reply).__name__}); check the address and port.")


def asyncio_timeout():
    import asyncio

    return asyncio.TimeoutError


def scheduler_address(scheduler_file: str) -> str:
    """The address a ``dask scheduler --scheduler-file`` run wrote into its file."""
    import json

    try:
        with open(scheduler_file, encoding="utf-8") as f:
            body = json.load(f)
    except FileNotFoundError:
        raise SchedulerError(f"The scheduler file {scheduler_file} does not exist; start the scheduler with "
                             f"`dask scheduler --scheduler-file {scheduler_file}`.") from None
    except (OSError, ValueError) as e:
        raise SchedulerError(f"The scheduler file {scheduler_file} is not the JSON a Dask scheduler writes "
                             f"({type(e).__name__}).") from None
    if not isinstance(body, dict) or not isinstance(body.get("address"), str):
        raise SchedulerError(f"The scheduler file {scheduler_file} names no address.")
    return body["address"]


@contextmanager
def cluster(scheduler: str | None = None, *, workers: int | None = None, threads_per_worker: int = 1,
            processes: bool = True, memory_limit: str | float = "auto", quiet: bool = False,
            timeout: str | float = "5s", scheduler_file: str | None = None, local_directory: str | None = None,
            on_start=None) -> Iterator:
    """A ``distributed.Client``: on the scheduler at ``scheduler``, or on a LocalCluster of this machine.

    Parameters
    ----------
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``). Its
        workers need this package installed and must see the input and
        output paths (a shared file system). It is checked first (see
        :func:`check_scheduler`).
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
    timeout : str or float, default="5s"
        How long to wait for ``scheduler`` to answer.
    scheduler_file : str, optional
        Instead of ``scheduler``: the file ``dask scheduler --scheduler-file`` wrote.
    local_directory : str, optional
        Where LocalCluster workers spill data that does not fit their
        memory (default: the system's temporary directory).
    on_start : callable, optional
        Called with the client once connected (the command line prints the dashboard's address).

    Raises
    ------
    SchedulerError
        when no scheduler answers at ``scheduler`` (a :class:`BatchError`).

    Examples
    --------
    A LocalCluster of one worker thread in this process, and then a client of a running scheduler:

    >>> with cluster(workers=1, processes=False, quiet=True) as client:
    ...     print(client.submit(sum, [1, 2, 3]).result(), len(client.scheduler_info()["workers"]))
    6 1
    >>> from distributed import LocalCluster
    >>> with LocalCluster(n_workers=1, processes=False, protocol="tcp", dashboard_address=None) as running:
    ...     with cluster(running.scheduler_address, quiet=True) as client:
    ...         print(client.submit(max, [1, 5, 2]).result())
    5
    """
    from dask.utils import parse_timedelta
    from distributed import Client, LocalCluster

    level = logging.CRITICAL + 10 if quiet else logging.WARNING  # quiet: not even "CRITICAL" noise
    logger = logging.getLogger("distributed")
    before = logger.level
    if quiet:
        logger.setLevel(level)
    seconds = float(parse_timedelta(timeout, "s"))
    try:
        if scheduler_file:
            scheduler = scheduler_address(scheduler_file)
        if scheduler:
            check_scheduler(scheduler, seconds)
            try:
                client = Client(scheduler, timeout=seconds)
            except (OSError, TimeoutError) as e:
                raise SchedulerError(f"No Dask scheduler answers at {scheduler} ({type(e).__name__}); start one with "
                                     "`dask scheduler` and workers with `dask worker ADDRESS`, or leave out "
                                     "--scheduler to use this machine.") from None
            with client:
                if on_start is not None:
                    on_start(client)
                yield client
            return
        # a batch job has the machine to itself: one worker per core unless told otherwise
        n = int(workers) if workers else (os.cpu_count() or 1)
        if n < 1:
            raise BatchError(f"workers must be at least 1, got {workers}.")
        if threads_per_worker < 1:
            raise BatchError(f"threads_per_worker must be at least 1, got {threads_per_worker}.")
        if local_directory is not None and not os.path.isdir(local_directory):
            raise BatchError(f"The spill directory {local_directory} does not exist.")
        extra = {"preload": ["embedcore.batch._worker"]} if processes else {}  # workers ignore Ctrl-C
        with LocalCluster(n_workers=n, threads_per_worker=threads_per_worker, processes=processes,
                          memory_limit=memory_limit, dashboard_address=":0", silence_logs=level,
                          local_directory=local_directory, **extra) as local:
            with Client(local) as client:
                if on_start is not None:
                    on_start(client)
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


def end_line() -> None:
    """End a progress bar's line left open (a run stopped part-way), so the next message starts afresh."""
    if Progress.open_line:
        Progress.open_line = False
        sys.stderr.write("\n")
        sys.stderr.flush()


class Progress:
    """A one-line text bar on stderr: ``sketch [#######.....] 7/12 partitions``."""

    open_line = False  # a bar's line is on screen without its newline

    def __init__(self, total: int, label: str, enabled: bool = True, unit: str = "partitions"):
        self.total, self.label, self.unit, self.done = total, label, unit, 0
        self.enabled = enabled and total > 0
        self.start = time.perf_counter()
        self._draw()

    def update(self, n: int = 1) -> None:
        self.done += n
        self._draw()

    def close(self) -> None:
        """End the bar's line if the run stopped before the last partition (the next message starts afresh)."""
        end_line()

    def _draw(self) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / self.total)
        line = (f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {self.unit}"
                f" {time.perf_counter() - self.start:6.1f}s")
        Progress.open_line = self.done < self.total
        sys.stderr.write(line + ("" if Progress.open_line else "\n"))
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
        bar.close()
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
        bar.close()
        let_go(client, [root])


def _refusal_message(value) -> str | None:
    return value.message if isinstance(value, _Refusal) else None


def _add_all(*parts):
    return reduce(add, parts)


class bounded_sum:
    """Adds partial results on a worker and refuses a sum grown past ``limit`` there, before it travels on.

    ``size(total)`` measures a sum (distinct pairs, non-zeros); ``message(size, limit)`` is the refusal's
    sentence, which the driver raises as a :class:`BatchError`.

    Examples
    --------
    >>> combine = bounded_sum(2, len, lambda n, limit: f"{n} items, more than {limit}")
    >>> combine([1], [2])
    [1, 2]
    >>> combine([1], [2, 3]).message
    '3 items, more than 2'
    """

    def __init__(self, limit: int, size: Callable[[Any], int], message: Callable[[int, int], str]):
        self.limit, self.size, self.message = limit, size, message

    def __call__(self, *parts):
        total = _add_all(*parts)
        n = self.size(total)
        if n > self.limit:
            return _Refusal(self.message(n, self.limit))
        return total


def _combine_checked(combine, *parts):
    for p in parts:
        if isinstance(p, _Refusal):
            return p
    return combine(*parts)


def versions() -> dict[str, str]:
    """Versions of this package and of every library that shapes a batch result (for manifests).

    Examples
    --------
    >>> import numpy as np
    >>> found = versions()
    >>> sorted(found)
    ['dask', 'distributed', 'embedding-lab', 'numpy', 'pandas', 'pyarrow', 'python', 'scikit-learn', 'scipy']
    >>> found["numpy"] == np.__version__
    True
    """
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": sys.version.split()[0]}
    for name in ("embedding-lab", "numpy", "scipy", "pandas", "pyarrow", "scikit-learn", "dask", "distributed"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out
