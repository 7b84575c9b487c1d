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
