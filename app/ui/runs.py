"""Long work on a page, with a Stop button that exists only while the work runs.

How stopping works in Streamlit: a click on any widget (Stop included) asks the server to rerun
the session's script, and a closed tab asks it to stop; the running script learns of either at
its next Streamlit call, which raises Streamlit's own exception and so ends the work. Work done
inside one long call (an optimiser, a fit) must therefore make such a call regularly:
:func:`check` (and :meth:`StoppableRun.check`) is one that draws nothing. Polled at least once a second, it ends the
work within a second of Stop or of the tab closing.

The Stop click then arrives as a new script run. :class:`StoppableRun`, created early in that run,
hands it the latest state the stopped work saved, tied to the key of what was being computed.
Work that finishes removes its Stop button and its saved state, so a late click can never put an
older state in place of a finished result.

Typical use::

    run = StoppableRun("pl.run", key)
    if run.stopped:
        keep(run.latest)                      # None if nothing was saved yet
    if start:
        with run.running(column, button_key="pl.stop_button"):
            result = fit(..., on_step=lambda state: run.save(state), should_stop=run.check)
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

import streamlit as st

#: Seconds between two real checks; check() is cheap, but work may call it thousands of times a second.
CHECK_INTERVAL = 0.05

# per thread: every session runs its script in a thread of its own
_last = threading.local()


def check() -> bool:
    """Let Streamlit end the script run here if a rerun or stop is pending; draws nothing.

    Any session-state access is one of Streamlit's yield points. Returns False, so it can be
    passed as a ``should_stop`` hook to long work that has no Stop button of its own (a rerun
    from any widget, or a closed tab, still ends it within a check).
    """
    now = time.monotonic()
    if now - getattr(_last, "check", 0.0) >= CHECK_INTERVAL:
        _last.check = now
        _ = "_" in st.session_state
    return False


def _ask_stop(flag: str) -> None:
    st.session_state[flag] = True


class StoppableRun:
    """One kind of long work on a page (``name``, a page-prefixed session-state key) for ``key``.

    After construction ``stopped`` says whether this script run was started by a Stop click
    during work on ``key``, and ``latest`` holds the last state that work saved (None when it had
    saved none). Construct it once per script run, before deciding whether to start the work:
    it also forgets the state of work that was interrupted in any other way.
    """

    def __init__(self, name: str, key: str):
        self.name, self.key = name, key
        self._flag, self._state = f"{name}.stop", f"{name}.latest"
        asked = st.session_state.pop(self._flag, False)
        record = st.session_state.pop(self._state, None)  # only work that did not finish leaves one
        self.stopped = bool(asked) and record is not None and record["key"] == key
        self.latest = record["state"] if self.stopped else None

    @contextmanager
    def running(self, where=None, *, button_key: str, help: str = "Stop, keeping the result so far."):
        """Show Stop in ``where`` (a container; default the current one) for the duration of the block.

        On a normal end, or an ordinary exception, the button and the saved state go away. When
        Streamlit ends the script run (Stop, another widget, a closed tab) both stay, for the next
        run to pick up.
        """
        st.session_state[self._state] = {"key": self.key, "state": None}
        slot = (where if where is not None else st).empty()
        slot.button("Stop", key=button_key, on_click=_ask_stop, args=(self._flag,), help=help)
        try:
            yield self
        except Exception:
            self._finish(slot)
            raise
        self._finish(slot)

    def _finish(self, slot) -> None:
        st.session_state.pop(self._state, None)
        slot.empty()

    def save(self, state) -> None:
        """Record the latest state of the work (what Stop keeps). Also a check."""
        st.session_state[self._state] = {"key": self.key, "state": state}

    def check(self) -> bool:
        """Let Streamlit end the run here if Stop was pressed or the tab closed (see :func:`check`)."""
        return check()
