"""Long work in a thread of its own, watched by the session that started it.

A Streamlit script run cannot tell a closed tab from a rerun (it ends the same way for both), so
the work asks instead: it goes on while the session watches it (:meth:`BackgroundJob.watched`,
called by each run that draws it) and ``alive()`` holds, and ends at its next check once it is
stopped (the result so far is kept), cancelled (nothing is kept), or unwatched for
:attr:`BackgroundJob.UNWATCHED_S` seconds. Words' t-SNE and Playlists' training build on it.
"""

from __future__ import annotations

import threading
import time

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx


class BackgroundJob:
    """The life of one piece of background work: ``outcome`` is None while it runs, then ``"done"``,
    ``"stopped"``, ``"cancelled"`` or ``"failed"`` (``message`` says why)."""

    #: Seconds without a watching run after which the work is given up (the page was left).
    UNWATCHED_S = 30.0

    def __init__(self, alive=None):
        self.outcome: str | None = None
        self.message = ""
        self.seconds = 0.0
        self.draws = 0  # live frames a page drew
        self._alive = alive
        self._seen = time.monotonic()
        self._stop = threading.Event()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    def _start(self, target, args: tuple, name: str) -> None:
        """Run ``target(*args)`` in a daemon thread (call it last in ``__init__``, once the state it uses is set)."""
        self._thread = threading.Thread(target=target, args=args, daemon=True, name=name)
        self._thread.start()

    # ---- asked by the session
    @property
    def running(self) -> bool:
        return self.outcome is None

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def watched(self) -> None:
        """The session is still looking: keep going."""
        self._seen = time.monotonic()

    def stop(self) -> None:
        """End at the next check, keeping the result so far."""
        self._stop.set()

    def cancel(self) -> None:
        """End at the next check, keeping nothing."""
        self._cancel.set()

    # ---- in the thread
    def _gone(self) -> bool:
        """Cancelled, unwatched too long, or the session's tab is closed."""
        return (self._cancel.is_set() or time.monotonic() - self._seen > self.UNWATCHED_S
                or (self._alive is not None and not self._alive()))


def session_job(slot: str, stop_slot: str, same) -> BackgroundJob | None:
    """This session's job (kept in session state under ``slot``) when ``same(job)`` holds, passing on a pending
    Stop click (``stop_slot``, set by the Stop button's callback). A job for other settings is cancelled and
    forgotten (the person moved on); a late Stop, after the job ended, changes nothing."""
    job = st.session_state.get(slot)
    stop = st.session_state.pop(stop_slot, False)
    if job is None:
        return None
    if not same(job):
        job.cancel()
        del st.session_state[slot]
        return None
    if stop and job.running:
        job.stop()
    return job


def session_alive():
    """A thread-safe test that this session's browser is still connected (None outside a server): the
    ``alive`` a job is given."""
    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return None
    runtime, session_id = Runtime.instance(), ctx.session_id
    return lambda: runtime.is_active_session(session_id)
