"""A t-SNE drawn while it runs: the run in a thread of its own, and a session's view of it.

:class:`TsneJob` runs one t-SNE and keeps its layouts as openTSNE hands them over; :class:`LiveMaps` is a
page's bookkeeping around it (this session's run, a pending Stop, a stopped layout kept, what to say once the
run ended). Words' word map and the Maps page draw their t-SNE this way: the map moves in place while the
optimiser places the points, and Stop keeps the layout so far.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import streamlit as st

from app.services.jobs import BackgroundJob, session_alive, session_job
from embedcore.maps import embed

#: Iterations a frame of a live t-SNE moves at most: 750 iterations are then at least 5 frames, paced
#: (at a page's 0.08 s a frame) to 0.4 s.
FRAME_ITERATIONS = 150
#: Live frames a t-SNE map is drawn in at least: a run that ends before the page has drawn this many is
#: still seen taking shape (its remaining layouts paced as above); once it has, the finished map follows at
#: once, without the layouts between the last frame and the end.
MIN_FRAMES = 5
#: Iterations between two layouts a t-SNE keeps for those frames.
KEEP_EVERY = 25
#: Seconds a page waits for a stopped t-SNE to end (it ends at its next layout, milliseconds away).
STOP_WAIT_S = 1.0


class TsneJob(BackgroundJob):
    """One t-SNE (:func:`embedcore.maps.embed` with ``params``) in a thread of its own, watched by the session
    that started it.

    openTSNE hands every fifth iteration's layout to :meth:`_on_layout`, which keeps it as
    ``latest`` (layout, iteration) and sets ``first`` at the first one. The page draws them with
    :meth:`next_frame`, which moves at most :data:`FRAME_ITERATIONS` iterations a frame: a run
    faster than the page's frames (300 words take well under a second) is still seen taking shape,
    in real layouts of the run, and :meth:`showing` stays True until the last one was drawn.
    :meth:`stop` ends the run at the next layout and keeps that layout; :meth:`cancel` ends it
    and keeps nothing, as does a session that closed its tab or stopped watching for
    :attr:`UNWATCHED_S` seconds. A finished map goes to ``store`` (every session reads it) as
    (layout, seconds).

    ``outcome`` is None while it runs, then ``"done"``, ``"stopped"``, ``"cancelled"`` or
    ``"failed"`` (``message`` says why); ``ended`` is set once everything else is in place.
    """

    def __init__(self, key: tuple, X: np.ndarray, store, *, seed: int, alive=None, name: str = "tsne", **params):
        super().__init__(alive)
        self.key = key
        self.latest: tuple[np.ndarray, int] | None = None
        self.progress: tuple[float, str] = (0.0, "t-SNE starting")
        self.shown = 0  # the iteration of the last frame drawn
        self.started = time.perf_counter()
        self._store = store
        self._kept: list[tuple[int, np.ndarray]] = []  # a layout every KEEP_EVERY iterations, for next_frame
        self._lock = threading.Lock()
        self.first = threading.Event()  # the first layout is there (or the run ended without one)
        self.ended = threading.Event()
        self._start(self._run, (X, int(seed), params), name)

    # ---- asked by the session
    def wait(self, seconds: float | None = None) -> bool:
        """Wait up to ``seconds`` (None: for good) for the run to end; True when it has."""
        return self.ended.wait(seconds)

    def showing(self) -> bool:
        """Whether the page should draw it live: it runs, or it finished before :data:`MIN_FRAMES` of its
        layouts were drawn and its last one was not."""
        return self.running or (self.outcome == "done" and self.latest is not None
                                and self.shown < self.latest[1] and self.draws < MIN_FRAMES)

    def next_frame(self, spread: float | None = None) -> tuple[np.ndarray, int] | None:
        """The layout to draw now: the latest, or, when the run is ahead of the page by more than
        FRAME_ITERATIONS, the one kept FRAME_ITERATIONS past the last drawn. None before the first.

        With ``spread`` (the :func:`spread` of the map drawn before the run, its start) the layout comes
        :func:`scaled_to` it: openTSNE starts from its PCA shrunk to a standard deviation of 0.0001, and the
        early exaggeration can shrink a layout further (300 words to 1e-11 by iteration 280), so frames drawn
        at the optimiser's own scale would pass from a map to a dot and back, the scale bar reading 5e-12."""
        frame = self._next_frame()
        if frame is None or spread is None:
            return frame
        return scaled_to(frame[0], spread), frame[1]

    def _next_frame(self) -> tuple[np.ndarray, int] | None:
        with self._lock:
            latest = self.latest
            if latest is None:
                return None
            if latest[1] > self.shown + FRAME_ITERATIONS:
                it, Y = max((k for k in self._kept if k[0] <= self.shown + FRAME_ITERATIONS),
                            key=lambda k: k[0], default=self._kept[0])
                latest = (Y, it)
            if latest[1] > self.shown:  # a layout not drawn before: one more frame
                self.draws += 1
            self.shown = max(self.shown, latest[1])
            return latest

    # ---- in the thread
    def _on_layout(self, Y, iteration: int) -> bool:
        latest = (np.array(Y, dtype=np.float64), iteration)
        with self._lock:
            if not self._kept or latest[1] - self._kept[-1][0] >= KEEP_EVERY:
                self._kept.append((latest[1], latest[0]))
            self.latest = latest
        self.first.set()
        return self._stop.is_set() or self._gone()

    def _on_progress(self, fraction: float, text: str) -> None:
        self.progress = (float(fraction), text)

    def _run(self, X, seed, params) -> None:
        t = time.perf_counter()
        try:
            coords = embed(X, "tsne", random_state=seed, progress=self._on_progress, on_layout=self._on_layout,
                           **params).coords
            self.seconds = time.perf_counter() - t
            if self._gone():
                outcome = "cancelled"
            elif self._stop.is_set():
                outcome = "stopped"
            else:
                self._store.put(self.key, (coords, self.seconds))
                outcome = "done"
        except ValueError as err:
            outcome, self.message = "failed", str(err)
        except Exception as err:  # noqa: BLE001  (shown on the page, not lost in a thread)
            outcome, self.message = "failed", f"t-SNE failed: {type(err).__name__}: {err}"
        self.outcome = outcome  # last: a session that sees it finds everything else in place
        self.first.set()
        self.ended.set()


def spread(Y: np.ndarray) -> float:
    """How widely a layout's points lie: their median distance from their median point (a few points flung far
    out, as early exaggeration's end does, do not change it).

    >>> spread(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [0.0, 0.0], [50.0, 50.0]]))
    1.0
    """
    Y = np.asarray(Y, dtype=np.float64)
    return float(np.median(np.linalg.norm(Y - np.median(Y, axis=0), axis=1))) if len(Y) else 0.0


def scaled_to(Y: np.ndarray, target: float) -> np.ndarray:
    """``Y`` about its median point, scaled so that its :func:`spread` is ``target`` (unchanged when it has
    none: every point in one place).

    >>> Y = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.0], [0.0, -2.0], [0.0, 0.0]]) * 1e-11 + 3.0
    >>> scaled_to(Y, 1.0).round(6).tolist()
    [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [0.0, 0.0]]
    """
    Y = np.asarray(Y, dtype=np.float64)
    now = spread(Y)
    if not (now > 0 and np.isfinite(now) and target > 0):
        return Y
    centre = np.median(Y, axis=0)
    return (Y - centre) * (target / now)


class LiveMaps:
    """One page's live t-SNE maps, in this session: at most one run at a time (kept in session state under
    ``"<page>.map_job"``), its Stop, the layouts it stopped at, and what to say once it ended. Finished maps are
    in ``store``, shared by every session."""

    def __init__(self, page: str, store):
        self.store = store
        self._job, self._stop = f"{page}.map_job", f"{page}.map_job.stop"
        self._kept, self._notice, self._drawn = f"{page}.stopped_maps", f"{page}.map_notice", f"{page}.map_frames"

    def start(self, key: tuple, X: np.ndarray, *, seed: int, name: str = "tsne", **params) -> TsneJob:
        """Start this session's t-SNE of ``X`` for the map ``key`` (cancelling any other it runs)."""
        old = st.session_state.get(self._job)
        if old is not None and old.running:
            old.cancel()
        job = TsneJob(key, X, self.store, seed=seed, alive=session_alive(), name=name, **params)
        st.session_state[self._job] = job
        return job

    def job(self, key: tuple) -> TsneJob | None:
        """This session's t-SNE for the map ``key``, passing on a pending Stop click; a run for another map is
        cancelled (the person moved on), and a late Stop, after the run ended, changes nothing."""
        job = session_job(self._job, self._stop, lambda j: j.key == key)
        if job is not None and job.running:
            job.watched()
        return job

    def ask_stop(self) -> None:
        """The Stop button's callback: stops the t-SNE at once (callbacks run before the script)."""
        job = st.session_state.get(self._job)
        if job is not None and job.running:
            job.stop()
        st.session_state[self._stop] = True

    def take_in(self, key: tuple) -> bool:
        """Take in this session's t-SNE of ``key`` if it has ended (a run stopped a moment ago is waited for, up
        to a second): a stopped layout is kept for this session (:meth:`shown`), and what the page should say
        is left for :meth:`notice`. True when one was taken in."""
        job = self.job(key)
        if job is None:
            return False
        if job.running and job.stopping:
            job.wait(STOP_WAIT_S)
        if job.running:
            return False
        del st.session_state[self._job]
        if job.outcome == "stopped" and job.latest is not None:
            Y, iteration = job.latest
            st.session_state.setdefault(self._kept, {})[key] = (Y, math.nan)
            st.session_state[self._notice] = (key, "info",
                                              f"Stopped at iteration {iteration}; the layout so far is kept.")
        elif job.outcome == "stopped":
            st.session_state[self._notice] = (key, "stopped", "")  # the page offers to start again
        elif job.outcome == "failed":
            st.session_state[self._notice] = (key, "error", job.message)
        if job.outcome in ("done", "stopped"):
            st.session_state[self._drawn] = (key, job.draws, job.seconds)
        return True

    def notice(self, key: tuple) -> tuple[str, str] | None:
        """What the page should say about the t-SNE of ``key`` that ended, once: (kind, message), kind "info",
        "error" or "stopped" (stopped before its first layout)."""
        found = st.session_state.get(self._notice)
        if found is None or found[0] != key:
            return None
        del st.session_state[self._notice]
        return found[1], found[2]

    def shown(self, key: tuple):
        """(layout, t-SNE seconds) of the map ``key``: the finished one every session shares, else the layout this
        session stopped (seconds NaN); None if neither."""
        return self.store.get(key) or st.session_state.get(self._kept, {}).get(key)

    def draws(self, key: tuple) -> tuple[int, float] | None:
        """(frames drawn while it ran, seconds) of this session's last t-SNE of ``key``."""
        found = st.session_state.get(self._drawn)
        return None if found is None or found[0] != key else (found[1], found[2])
