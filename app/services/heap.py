"""Keep full garbage collections to the objects the runs made.

Streamlit can call ``gc.collect(2)`` after every script run, a full pass over
every object the server holds: with scikit-learn, SciPy, Plotly and the rest
imported that is 180,000-290,000 objects and 0.07-0.11 s (0.25-0.5 s on a busy
machine), paid before the browser hears that the run is over. The lab turns
that pass off (``runner.postScriptGC = false`` in .streamlit/config.toml), and
Python's own collector still makes full passes when enough objects have been
made. Most of the objects are modules, classes and functions that live as long
as the process: ``settle`` collects once and moves what is alive into the
collector's permanent generation (``gc.freeze``) whenever new modules have
been imported since the last time (a page's first use of UMAP, gensim, ...),
so later passes only look at objects made since. Between imports nothing is
frozen, so the objects of a session and of its runs stay collectable.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
import weakref

_modules_seen = 0


def settle() -> bool:
    """Freeze the heap if modules were imported since the last call; True if it froze."""
    global _modules_seen
    if len(sys.modules) == _modules_seen:
        return False
    gc.collect()
    gc.freeze()
    _modules_seen = len(sys.modules)
    return True


def give_back() -> None:
    """Return freed memory to the system: glibc keeps freed blocks of its heaps for reuse, so a server that has
    read a big upload stays at its peak size after the upload is dropped unless it is asked to trim them."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass


_watching = threading.Lock()
_watcher: threading.Thread | None = None


#: Every session seen by the watcher, by id (weakly: the watcher keeps none alive).
_known: dict = {}


def _sessions() -> int | None:
    """Sessions the server keeps (connected, or disconnected and within their TTL); None outside a server.

    Streamlit keeps a disconnected session for ``server.disconnectedSessionTTL`` seconds in a TTL cache, which
    drops it when its time is up without shutting it down: its uploaded files, its download callables and its
    state stay referenced. Here an expired session is dropped from that cache, and one that has gone from the
    server without a shutdown is shut down, its state cleared.
    """
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return None
    manager = getattr(Runtime.instance(), "_session_mgr", None)
    stored = getattr(getattr(manager, "_session_storage", None), "_cache", None)
    if hasattr(stored, "expire"):
        stored.expire()
    try:
        now = {info.session.id: info.session for info in manager.list_sessions()}
    except AttributeError:  # a Streamlit that keeps its sessions elsewhere: collect on the clock instead
        return -1
    for sid in [s for s in _known if s not in now]:
        session = _known.pop(sid)()
        if session is not None:
            _end(session)
    for sid, session in now.items():
        _known.setdefault(sid, weakref.ref(session))
    return len(now)


def _end(session) -> None:
    try:
        session.shutdown()  # Streamlit's own clean-up: the session's uploaded files and downloads
        session.session_state.clear()  # what the pages kept, held no longer by a stale reference to the session
    except Exception:  # a session already half shut down: nothing more to free
        pass


def _watch(interval: float) -> None:
    seen = _sessions()
    while True:
        time.sleep(interval)
        now = _sessions()
        if now is None:
            return
        if now < seen or now == -1:
            collect()
        seen = now


def collect() -> None:
    """A full collection of every object, frozen ones too, then the freed heap trimmed: what a session left behind
    is mostly cycles (its state, its page's namespace) that only a full pass frees, and ``settle`` may have frozen
    them when a module was imported while the session was alive."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    give_back()


def watch_sessions(interval: float = 10.0) -> None:
    """Start (once per process) a thread that collects after sessions have ended (closed, or kept past
    ``server.disconnectedSessionTTL``), so their uploads and results go back to the system within ``interval``."""
    global _watcher
    with _watching:
        if _watcher is None and _sessions() is not None:
            _watcher = threading.Thread(target=_watch, args=(interval,), name="lab-sessions", daemon=True)
            _watcher.start()
