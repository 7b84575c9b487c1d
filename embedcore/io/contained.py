"""Reading in a process of its own, so a read that runs away ends there and not in the caller.

A server reads what strangers upload. Metadata checks (:mod:`embedcore.io.budgets`) refuse the
files whose size they can see; what is left to chance (a reader's peak memory, a format that takes
minutes) is contained here: :func:`run` calls a reader in a child process with an address-space
limit (``RLIMIT_AS``, :data:`~embedcore.io.budgets.READ_MEMORY` above the child's own start) and a
wall-clock limit (:data:`~embedcore.io.budgets.READ_SECONDS`). A read past either ends the child,
not the server, and comes back as a :class:`DataError` naming the limit. While the child reads, the
calling thread waits on a pipe without the interpreter lock, so the server goes on serving others.

The children are forked from a small single-threaded server process of our own that has imported
the readers once, so a read starts in milliseconds without inheriting the caller's threads or
memory; the child's memory goes back to the system when it exits.
"""

from __future__ import annotations

import os
import pickle
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Client, Connection, Listener
from typing import Any, Callable

from ..exceptions import DataError
from . import budgets

#: Modules the reader server imports once, so each read's child starts with them.
PRELOAD = ("embedcore.io", "pandas", "pyarrow.parquet", "openpyxl", "odf.opendocument", "xlrd")

#: The first byte of a child's answer: a result follows, or the reader's message, or nothing (out of memory).
_OK, _ERROR, _MEMORY, _FAILED = b"K", b"E", b"M", b"F"

_lock = threading.Lock()
_server: "_ReaderServer | None" = None


class _ReaderServer:
    """A process of our own that has imported the readers and forks one child per read.

    It is single-threaded, so forking it is safe (forking a threaded server is not), and it is started
    with ``python -c``, so no caller's main module is imported again in it.
    """

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="lab-readers-")
        self.address = os.path.join(self.folder, "socket")
        self.key = secrets.token_bytes(32)
        paths = os.pathsep.join(p for p in sys.path if p)
        env = dict(os.environ, PYTHONPATH=paths, LAB_READER_KEY=self.key.hex())
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"from embedcore.io.contained import _serve; _serve({self.address!r})"],
            env=env, stdin=subprocess.DEVNULL)

    def alive(self) -> bool:
        return self.process.poll() is None

    def connect(self, wait: float) -> Connection:
        deadline = time.monotonic() + wait
        while True:
            try:
                return Client(self.address, family="AF_UNIX", authkey=self.key)
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline or not self.alive():
                    raise
                time.sleep(0.02)


def _serve(address: str) -> None:
    """The reader server's loop: accept a read, fork a child for it, go on accepting."""
    import importlib

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the system
    key = bytes.fromhex(os.environ.pop("LAB_READER_KEY"))
    parent = os.getppid()
    try:
        with Listener(address, family="AF_UNIX", authkey=key) as listener:
            # wake every few seconds to see whether the process that started this one is still there
            listener._listener._socket.settimeout(5.0)
            while os.getppid() == parent:
                try:
                    conn = listener.accept()
                except (TimeoutError, OSError, EOFError):
                    continue
                if os.fork() == 0:
                    try:
                        listener._listener._socket.close()
                        _child(conn)
                    finally:
                        os._exit(0)
                conn.close()
    finally:
        shutil.rmtree(os.path.dirname(address), ignore_errors=True)


def _address_space() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _child(conn: Connection) -> None:
    try:
        conn.send(os.getpid())
        memory, fn, args, kwargs = conn.recv()
        try:
            limit = _address_space() + memory
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            payload = _OK + pickle.dumps(fn(*args, **kwargs), protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            payload = _MEMORY
        except DataError as err:
            payload = _ERROR + str(err).encode()
        except Exception as err:  # a reader's own failure (pyarrow's out-of-memory among them)
            text = f"{type(err).__name__}: {err}"
            memory = "bad_alloc" in text or "memory" in text.lower()
            payload = _MEMORY if memory else _FAILED + text[:300].encode()
        conn.send_bytes(payload)
    finally:
        conn.close()


def _connect() -> Connection:
    global _server
    with _lock:
        if _server is None or not _server.alive():
            _server = _ReaderServer()
            wait = 120.0  # its imports, on a loaded machine
        else:
            wait = 10.0
        server = _server
    return server.connect(wait)


def _sizes(memory: int, seconds: float) -> tuple[str, str]:
    return f"{memory / 2**30:g} GB", f"{seconds:g} s"


def run_pickled(fn: Callable, *args: Any, what: str = "This file", memory: int | None = None,
                seconds: float | None = None, **kwargs: Any) -> bytes:
    """Call ``fn(*args, **kwargs)`` in a contained child; return its result pickled (to cache as bytes).

    ``fn`` must be importable by name (a module-level function). ``what`` begins the message when a
    limit is reached ("This file needs more than 2 GB of memory to read ..."). The pickle is made by
    our own child from the reader's result, never from uploaded bytes.

    Raises
    ------
    DataError
        The reader's own message, or one naming the memory or time limit that ended the read.

    Examples
    --------
    >>> payload = run_pickled(len, "abc")
    >>> loads(payload)
    3
    """
    memory = budgets.READ_MEMORY if memory is None else memory
    seconds = budgets.READ_SECONDS if seconds is None else seconds
    gb, limit = _sizes(memory, seconds)
    too_big = (f"{what} needs more than {gb} of memory to read, more than the lab gives one file. "
               "Upload a sample, fewer columns, or save it as CSV or .npy.")
    conn = _connect()
    pid = None
    try:
        pid = conn.recv()
        conn.send((memory, fn, args, kwargs))
        if not conn.poll(seconds):
            raise DataError(f"{what} needs more than {limit} to read, longer than the lab gives one file. "
                            "Upload a sample, fewer columns, or save it as CSV or .npy.")
        try:
            payload = conn.recv_bytes()
        except EOFError:  # the child ended without a word: killed for its memory, most likely
            raise DataError(f"{what} could not be read: its reader ended without an answer, most likely out of "
                            f"the {gb} of memory the lab gives one file. Upload a sample, fewer columns, or save "
                            "it as CSV or .npy.") from None
        pid = None  # it answered and ends by itself
    finally:
        conn.close()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    status, text = payload[:1], payload[1:]
    if status == _OK:
        return payload
    if status == _MEMORY:
        raise DataError(too_big)
    if status == _ERROR:
        raise DataError(text.decode())
    raise DataError(f"{what} could not be read ({text.decode()}). Save it again as CSV and upload that.")


def run(fn: Callable, *args: Any, what: str = "This file", memory: int | None = None,
        seconds: float | None = None, **kwargs: Any) -> Any:
    """Call ``fn(*args, **kwargs)`` in a contained child and return its result.

    Examples
    --------
    >>> run(sum, [1, 2, 3])
    6
    >>> run(bytearray, 3 * 2**30, memory=2**30)
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: This file needs more than 1 GB of memory to read, more than the lab gives one \
file. Upload a sample, fewer columns, or save it as CSV or .npy.
    >>> run(time.sleep, 5, seconds=0.5)
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: This file needs more than 0.5 s to read, longer than the lab gives one file. \
Upload a sample, fewer columns, or save it as CSV or .npy.
    """
    return loads(run_pickled(fn, *args, what=what, memory=memory, seconds=seconds, **kwargs))


def loads(payload: bytes) -> Any:
    """The result in a payload from :func:`run_pickled`.

    Examples
    --------
    >>> loads(run_pickled(sorted, [3, 1, 2]))
    [1, 2, 3]
    """
    return pickle.loads(memoryview(payload)[1:])


def warm() -> None:
    """Start the reader server now (it imports the readers once, about 2 s), so the first upload does not wait.

    Examples
    --------
    >>> warm()
    """
    run(time.monotonic, seconds=120)
