"""Keep Streamlit's after-run garbage collection to the objects a run made.

After every script run Streamlit calls ``gc.collect(2)``, a full pass over
every object the server holds: with scikit-learn, SciPy, Plotly and the rest
imported that is 180,000-290,000 objects and 0.07-0.11 s, paid by every rerun
before the browser hears that the run is over. Most of those objects are
modules, classes and functions that live as long as the process. ``settle``
collects once and moves what is alive into the collector's permanent
generation (``gc.freeze``) whenever new modules have been imported since the
last time (a page's first use of UMAP, gensim, ...), so the after-run pass only
looks at objects made since. Between imports nothing is frozen, so the objects
of a session and of its runs stay collectable.
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
