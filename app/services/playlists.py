"""Training and reading LME models for the Playlists page.

Everything here is keyed on what identifies the data (a :class:`DataRef`) and the
settings of its stage. A model is trained in a thread of its own, so the page can
draw the live map and offer Stop while it learns; the finished model (and a model
someone stopped, under the iteration it reached) goes to a store shared by every
session, so a second visitor with the same settings gets the map at once.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from itertools import chain
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services import shared
from app.services.jobs import BackgroundJob, session_alive, session_job
from app.services.data import DataRef
from app.services.reproduce import Recipe
from embedcore.io.sets import cut_into_sessions, session_length
from embedcore.playlists import (  # noqa: F401  (MAX_EXACT_Z_SONGS and partition_cost are for the page)
    LME,
    MAX_EXACT_Z_SONGS,
    PlaylistHMM,
    ScoredTransitions,
    align_to_truth,
    baseline_log_likelihoods,
    cold_start_scores,
    next_songs,
    partition_cost,
    play_counts,
    scored_transitions,
    song_coordinates,
    song_index,
    song_tag_labels,
    split_playlists,
)

#: Songs up to which a new setting trains at once; above it the page waits for Train.
AUTO_TRAIN_SONGS = 500
#: The tag penalty's weight, as the model uses it (for the page's formula caption).
TAG_WEIGHT = LME().tag_weight


# --------------------------------------------------------------------------- the data and its split


#: How a data reference names an upload of one playlist cut into sessions of a chosen length.
_SESSIONS = ":sessions="


def sessions_ref(data: DataRef, length: int) -> DataRef:
    """The reference to ``data`` (an upload of one playlist) cut into sessions of ``length`` songs."""
    return DataRef(f"{data.kind.partition(_SESSIONS)[0]}{_SESSIONS}{int(length)}", data.source, data.seed)


def base_ref(data: DataRef) -> DataRef:
    """The reference to the file as read, without a session cut (what a reproduce script loads)."""
    return DataRef(data.kind.partition(_SESSIONS)[0], data.source, data.seed)


def session_cut(data: DataRef) -> int | None:
    """The session length ``data`` is cut at, or None when it is read as it is."""
    length = data.kind.partition(_SESSIONS)[2]
    return int(length) if length else None


def load(data: DataRef):
    """The playlists ``data`` names: the file as read, or its one playlist cut into sessions (in their order)."""
    pdata = data_service.load(base_ref(data))
    length = session_cut(data)
    if length is None or not pdata.one_playlist:
        return pdata
    whole = list(chain.from_iterable(pdata.playlists))  # the reader's own cut keeps the order
    return replace(pdata, playlists=cut_into_sessions(whole, length))


def one_playlist(data: DataRef) -> int | None:
    """Songs in the upload's single playlist when it held only one, else None (bundled sets hold many)."""
    return data_service.load(base_ref(data)).one_playlist


def default_session_length(n_songs: int) -> int:
    """The session length a single playlist of ``n_songs`` is cut at when read."""
    return session_length(n_songs)


@st.cache_resource(max_entries=8, show_spinner=False)
def split(data: DataRef, test_size: float):
    """Training and held-out playlists (split by playlist with the data's seed); shared, never mutated."""
    return split_playlists(load(data).playlists, test_size, random_state=data.seed)


@st.cache_data(max_entries=16, show_spinner=False)
def facts(data: DataRef, test_size: float) -> dict:
    """What the page says about the data before any training: counts, description, what it ships with."""
    pdata = load(data)
    train, test = split(data, test_size)
    return {
        "songs": len(song_index(pdata.playlists)),
        "train": len(train),
        "test": len(test),
        "transitions": sum(max(len(p) - 1, 0) for p in train),
        "trainable": any(len(p) >= 2 for p in train),
        "description": pdata.description,
        "has_truth": getattr(pdata, "truth", None) is not None,
        "has_tags": bool(getattr(pdata, "tags", None)),
    }


#: Kernel terms per second of one training step, measured on two cores: the page's estimate of a step's time.
TERMS_PER_SECOND = 5e7


def step_seconds(n_songs: int, z_approx: int | None) -> float:
    """A rough time of one training step on ``n_songs`` songs, from its kernel terms."""
    return partition_cost(n_songs, z_approx).terms / TERMS_PER_SECOND


#: What the page calls each baseline.
BASELINE_TITLES = {"uniform": "uniform", "unigram": "unigram", "bigram": "bigram (Witten-Bell)"}


@st.cache_data(max_entries=16, show_spinner=False)
def baselines(data: DataRef, test_size: float) -> dict:
    """Held-out log-likelihood of uniform, unigram and Witten-Bell bigram over the scored transitions, by the
    names the page gives them."""
    scores = baseline_log_likelihoods(*split(data, test_size))
    return {BASELINE_TITLES[name]: value for name, value in scores._asdict().items()}


@st.cache_resource(max_entries=8, show_spinner=False)
def held_out_set(data: DataRef, test_size: float) -> ScoredTransitions:
    """The held-out transitions between training songs: what every held-out score is taken over."""
    train, test = split(data, test_size)
    return scored_transitions(test, song_index(train))


@st.cache_data(max_entries=16, show_spinner=False)
def true_model_score(data: DataRef, test_size: float) -> float | None:
    """The true model's held-out log-likelihood, for data generated from one (None otherwise)."""
    truth = getattr(load(data), "truth", None)
    return None if truth is None else held_out(truth, held_out_set(data, test_size))


@st.cache_data(max_entries=16, show_spinner=False)
def song_info(data: DataRef) -> pd.DataFrame:
    """Plays and tags of every song, indexed by song id."""
    pdata = load(data)
    songs = song_index(pdata.playlists)
    return pd.DataFrame({"plays": play_counts(pdata.playlists, songs),
                         "tags": song_tag_labels(songs, getattr(pdata, "tags", None))}, index=songs)


def held_out(model: LME, held: ScoredTransitions, should_stop=None) -> float | None:
    """A model's average log-likelihood over the held-out transitions of ``held``; None when there are none."""
    return None if held.n_scored == 0 else model.log_likelihood(held.playlists, should_stop=should_stop)


def left_out_line(held: ScoredTransitions) -> str:
    """One sentence: how many held-out transitions are left out of the scores, and why."""
    if held.n_total == 0:
        return "The held-out playlists have no transition (every one has a single song), so nothing is scored."
    if held.n_left_out == 0:
        return (f"All {held.n_total:,} held-out transitions are between songs seen in training; "
                "none is left out.")
    return (f"{held.n_left_out:,} of {held.n_total:,} held-out transitions involve a song never seen in training "
            "and are left out of every score.")


# --------------------------------------------------------------------------- models, shared by every session


class ModelSpec(NamedTuple):
    """What identifies a trained model: the data, the held-out share and the training settings."""

    data: DataRef
    test_size: float
    model: str
    n_components: int
    reg: float
    max_iter: int
    z_approx: int | None

    def params(self) -> dict:
        return dict(model=self.model, n_components=self.n_components, reg=self.reg, max_iter=self.max_iter,
                    random_state=self.data.seed, z_approx=self.z_approx)


class ModelKey(NamedTuple):
    """A model in the store: training that ran to its end (``stopped_at`` None), or was stopped there."""

    spec: ModelSpec
    stopped_at: int | None = None


@dataclass(frozen=True)
class Trained:
    """A fitted model with its held-out score and the seconds its fit took (never mutated once stored)."""

    model: LME
    held_out: float | None
    seconds: float = float("nan")


def _models() -> shared.SharedStore:
    return shared.store("pl.models", 16)


def trained(key: ModelKey) -> Trained | None:
    return _models().get(key)


def model_info(key: ModelKey) -> dict:
    """Iterations, training seconds and the training curve of a stored model."""
    found = trained(key)
    model = found.model
    return {"iterations": int(model.n_iter_), "seconds": found.seconds,
            "curve": model.log_likelihood_curve_}


#: The most (playlists x longest playlist x states) cells the hidden Markov model's passes may hold.
HMM_MAX_CELLS = 6_000_000


class HMMBaseline(NamedTuple):
    """The hidden Markov model beside the LME: why it was not trained (``problem``), or how it scored."""

    problem: str | None  # too large for the page; then nothing else is filled in
    held_out: float | None = None  # held-out log-likelihood per transition (None: nothing held out)
    parameters: int | None = None  # free parameters
    iterations: int | None = None  # Baum-Welch rounds run


@st.cache_data(max_entries=16, show_spinner=False)
def hmm_baseline(data: DataRef, test_size: float, n_states: int) -> HMMBaseline:
    """A hidden Markov model with ``n_states`` states trained on the training playlists, scored on the held-out
    transitions every other model is scored on. ``problem`` says why it was not trained (too large), else None."""
    train, _ = split(data, test_size)
    cells = len(train) * max(map(len, train)) * n_states
    if cells > HMM_MAX_CELLS:
        return HMMBaseline(f"{len(train):,} training playlists (the longest has {max(map(len, train)):,} songs) "
                           f"with {n_states} states would hold {cells:,} cells per pass; the page allows "
                           f"{HMM_MAX_CELLS:,}. Fewer states, or shorter playlists.")
    held = held_out_set(data, test_size)
    model = PlaylistHMM(n_states=n_states, random_state=data.seed).fit(train)
    return HMMBaseline(None, None if held.n_scored == 0 else model.log_likelihood(held.playlists),
                       model.n_parameters_, model.n_iter_)


def hmm_table(key: ModelKey, n_states: int) -> pd.DataFrame:
    """Held-out log-likelihood and free parameters of uniform, the HMM, the bigram table and this LME."""
    spec = key.spec
    S = len(trained(key).model.songs_)
    hmm = hmm_baseline(spec.data, spec.test_size, n_states)
    base = baselines(spec.data, spec.test_size)
    points = (1 if spec.model == "single" else 2) * S * spec.n_components
    rows = [("uniform", 0, base["uniform"]),
            (f"hidden Markov model, K = {n_states}", hmm.parameters, hmm.held_out),
            ("bigram (Witten-Bell)", S * (S - 1), base["bigram (Witten-Bell)"]),
            (f"LME ({spec.model}-point, d = {spec.n_components})", points, trained(key).held_out)]
    return pd.DataFrame(rows, columns=["model", "free parameters", "held-out log-likelihood"])


def baseline_table(base: dict) -> pd.DataFrame:
    """The baselines' held-out scores as a table (shown before any model is trained)."""
    return pd.DataFrame({"model": list(base), "held-out log-likelihood": list(base.values())})


# --------------------------------------------------------------------------- training in a thread


class Frame(NamedTuple):
    """The latest accepted step of a training run, as the live map draws it."""

    xy: np.ndarray
    curve: np.ndarray
    iteration: int
    log_likelihood: float


class TrainingJob(BackgroundJob):
    """One LME fit in a thread of its own, watched by the session that started it.

    :meth:`stop` ends it at the next check (between blocks of work, tens of
    milliseconds apart) and keeps the last accepted step; :meth:`cancel` ends it and
    keeps nothing. It is cancelled too when ``alive()`` turns False (the tab was
    closed) or nobody has watched it for :attr:`UNWATCHED_S` seconds (the page was
    left). A script run cannot tell a closed tab from a rerun (Streamlit ends the
    run the same way for both), so the thread asks.

    ``outcome`` is None while it runs, then ``"done"``, ``"stopped"``,
    ``"cancelled"`` or ``"failed"`` (``message`` says why); a kept model is stored
    under ``key``, in the store every session reads.
    """

    #: The training section's runs watch it (four a second); a browser tab in the background runs its
    #: timers as rarely as once a minute, which must not end the training.
    UNWATCHED_S = 90.0

    def __init__(self, spec: ModelSpec, train, tags, held: ScoredTransitions, alive=None):
        super().__init__(alive)
        self.spec = spec
        self.latest: Frame | None = None
        self.key: ModelKey | None = None
        self._first = threading.Event()
        self._curve: tuple[float, np.ndarray] | None = None
        self._halted = False
        self._started = time.perf_counter()
        self._store = _models()  # looked up here: the thread makes no Streamlit call
        self._start(self._run, (train, tags, held), "lme-training")

    # ---- asked by the session

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the run to end; True when it has."""
        self._thread.join(timeout=seconds)
        return not self._thread.is_alive()

    def curve(self, every: float = 1.0) -> np.ndarray:
        """The training curve as the live view shows it: refreshed at most every ``every`` seconds (a chart
        sent again unchanged is not drawn again by the browser, so the map's frames keep its time)."""
        now = time.monotonic()
        shown = self._curve
        if self.latest is not None and (shown is None or now - shown[0] >= every):
            shown = self._curve = (now, self.latest.curve)
        return np.zeros(0) if shown is None else shown[1]

    def wait_for_frame(self, seconds: float) -> Frame | None:
        """Wait up to ``seconds`` for the first accepted step (or the end); the latest frame, if any."""
        self._first.wait(timeout=seconds)
        return self.latest

    # ---- in the thread

    def _should_stop(self) -> bool:
        if self._stop.is_set() or self._gone():
            self._halted = True
        return self._halted

    def _on_step(self, model: LME, iteration: int, ll: float) -> bool:
        xy = model.embedding_
        if xy.shape[1] < 2:
            xy = np.column_stack([xy[:, 0], np.zeros(len(xy))])
        self.latest = Frame(np.array(xy[:, :2]), np.array(model.log_likelihood_curve_), iteration, ll)
        self._first.set()
        return self._should_stop()

    def _run(self, train, tags, held) -> None:
        try:
            outcome, key = self._train(train, tags, held)
        except ValueError as err:
            outcome, key, self.message = "failed", None, str(err)
        except Exception as err:  # noqa: BLE001  (shown on the page, not lost in a thread)
            outcome, key, self.message = "failed", None, f"Training failed: {type(err).__name__}: {err}"
        self.seconds = time.perf_counter() - self._started
        self.key = key
        self.outcome = outcome  # last: a session that sees it finds everything else in place
        self._first.set()

    def _train(self, train, tags, held) -> tuple[str, ModelKey | None]:
        t = time.perf_counter()
        model = LME(**self.spec.params()).fit(train, tags=tags, callback=self._on_step,
                                              should_stop=self._should_stop)
        seconds = time.perf_counter() - t
        if self._gone():
            return "cancelled", None
        stopped = self._halted
        if stopped and model.n_iter_ == 0:
            return "stopped", None  # before the first accepted step: nothing to keep
        score = held_out(model, held, should_stop=self._gone)
        if self._gone():
            return "cancelled", None
        key = ModelKey(self.spec, int(model.n_iter_) if stopped else None)
        self._store.put(key, Trained(model, score, seconds))
        return ("stopped" if stopped else "done"), key


# --------------------------------------------------------------------------- the session's view of training

_JOB = "pl.job"
_STOP = "pl.run.stop"
_KEPT = "pl.kept"  # settings -> iteration of a model this session stopped (0: stopped with nothing to keep)


def ask_stop() -> None:
    """The Stop button's callback: stops the training at once (callbacks run before the page) and tells the
    run that follows, which shows the model it kept."""
    job = st.session_state.get(_JOB)
    if job is not None and job.running:
        job.stop()
    st.session_state[_STOP] = True


def current_job(spec: ModelSpec) -> TrainingJob | None:
    """This session's training run for ``spec``, passing on a pending Stop click.

    A run for other settings is cancelled (the person moved on); a late Stop, after
    the run ended, changes nothing.
    """
    return session_job(_JOB, _STOP, lambda j: j.spec == spec)


def _job(spec: ModelSpec, **kwargs) -> TrainingJob:
    train, _ = split(spec.data, spec.test_size)
    tags = getattr(load(spec.data), "tags", None)
    return TrainingJob(spec, train, tags, held_out_set(spec.data, spec.test_size), **kwargs)


def start(spec: ModelSpec) -> TrainingJob:
    """Start training ``spec`` (cancelling any other run of this session). The script run goes on at once:
    the page's training section draws the run as it learns, in runs of its own."""
    old = st.session_state.get(_JOB)
    if old is not None and old.running:
        old.cancel()
    job = _job(spec, alive=session_alive())
    st.session_state[_JOB] = job
    return job


_PREFETCH_LOCK = threading.Lock()


def _prefetches() -> shared.SharedStore:
    return shared.store("pl.prefetch", 8)


def prefetch(spec: ModelSpec) -> None:
    """Train ``spec`` in the background for whoever asks for it next (its store entry is what they get).

    For the model a person is one click away from (the other point model on small data): the click
    then shows a map at once instead of training while the person waits. Nothing is drawn and no
    session owns the run; it is given up, like any run nobody watches, after ``UNWATCHED_S``.
    """
    if trained(ModelKey(spec)) is not None:
        return
    with _PREFETCH_LOCK:
        job = _prefetches().get(spec)
        # a run that ended "done" and whose model has since left the store (16 models at most) trains again
        if job is not None and job.outcome is None:
            return
        _prefetches().put(spec, _job(spec))


def prefetching(spec: ModelSpec) -> TrainingJob | None:
    """The background run training ``spec``, while it runs (see :func:`prefetch`)."""
    job = _prefetches().get(spec)
    return job if job is not None and job.running else None


def collect(job: TrainingJob) -> tuple[str, str] | None:
    """Take in an ended run once: ``(kind, message)`` to show (kind "info" or "error"), or None.

    A run stopped a moment ago is waited for (it ends at its next check)."""
    if job.running and job.stopping:
        job.wait(2.0)
    if st.session_state.get(_JOB) is not job or job.running:
        return None
    del st.session_state[_JOB]
    st.session_state["pl.redraw_rate"] = (job.draws, job.seconds)
    kept = st.session_state.setdefault(_KEPT, {})
    if job.outcome == "done":
        kept.pop(job.spec, None)
        return None
    if job.outcome == "stopped":
        if job.key is None:
            kept[job.spec] = 0
            return ("info", "Stopped before the first step was accepted; there is no model to keep. "
                            "Press Train to start again.")
        kept[job.spec] = job.key.stopped_at
        n = job.key.stopped_at
        return "info", f"Stopped after {n} iteration{'s' if n != 1 else ''}; the model so far is kept."
    if job.outcome == "failed":
        return "error", job.message
    return None


def shown_key(spec: ModelSpec) -> ModelKey | None:
    """The model this session shows for ``spec``: the one it stopped, else the finished one; None if neither."""
    stopped_at = st.session_state.get(_KEPT, {}).get(spec)
    if stopped_at:
        key = ModelKey(spec, stopped_at)
        if trained(key) is not None:
            return key
    key = ModelKey(spec)
    return key if trained(key) is not None else None


def auto_trains(spec: ModelSpec, n_songs: int) -> bool:
    """Whether a page run starts training by itself: small data, no model yet, and not stopped here."""
    return (n_songs <= AUTO_TRAIN_SONGS and shown_key(spec) is None
            and spec not in st.session_state.get(_KEPT, {}))


# --------------------------------------------------------------------------- what the tabs show


def song_table(key: ModelKey) -> pd.DataFrame:
    """One row per song of the model: song (str), x, y (the map's first two dimensions), plays, tags."""
    model = trained(key).model
    info = song_info(key.spec.data).reindex(model.songs_)
    xy = model.embedding_
    return pd.DataFrame({
        "song": [str(s) for s in model.songs_],
        "x": xy[:, 0],
        "y": xy[:, 1] if xy.shape[1] > 1 else np.zeros(len(xy)),
        "plays": info["plays"].fillna(0).astype(int).to_numpy(),
        "tags": info["tags"].fillna("").to_numpy(),
    })


def song_space(key: ModelKey) -> np.ndarray:
    """Every song's point in all the model's dimensions (the map shows the first two)."""
    return trained(key).model.embedding_


@st.cache_resource(max_entries=8, show_spinner=False)
def _training_songs(data: DataRef, test_size: float) -> tuple[np.ndarray, np.ndarray]:
    """The training playlists flattened: each entry's song id (as text) and its playlist's number."""
    train, _ = split(data, test_size)
    lengths = np.fromiter(map(len, train), dtype=np.int64, count=len(train))
    songs = np.array([str(s) for s in chain.from_iterable(train)], dtype=object)
    return songs, np.repeat(np.arange(len(train)), lengths)


@st.cache_data(max_entries=16, show_spinner=False)
def selection_summary(key: ModelKey, songs: tuple[str, ...], top: int = 10) -> dict:
    """What joins the selected songs: how many carry each tag, and the training playlists that hold two or
    more of them (most first), with how many such playlists there are."""
    flat, owner = _training_songs(key.spec.data, key.spec.test_size)
    hit = np.isin(flat, np.asarray(songs, dtype=object))
    per_list = np.bincount(owner[hit], minlength=int(owner.max()) + 1 if owner.size else 0)
    lengths = np.bincount(owner, minlength=per_list.size)
    joined = np.flatnonzero(per_list >= 2)
    order = joined[np.lexsort((joined, -per_list[joined]))][:top]
    playlists = pd.DataFrame({
        "training playlist": order, "selected songs in it": per_list[order], "songs": lengths[order],
        "which": [", ".join(dict.fromkeys(flat[hit & (owner == i)])) for i in order]})
    tags = song_info(key.spec.data).reindex(list(songs))["tags"].fillna("")
    counts = pd.Series([t for row in tags for t in row.split(", ") if t], dtype=object).value_counts()
    return {"tags": pd.DataFrame({"tag": counts.index.astype(str), "selected songs": counts.to_numpy()}),
            "playlists": playlists, "joined": int(joined.size), "training": int(per_list.size)}


@st.cache_data(max_entries=16, show_spinner=False)
def truth_alignment(key: ModelKey):
    """The learned map aligned to the true one: ``(aligned, true_points, disparity, songs)`` (``songs``: the ids
    of the songs both models know, in the rows' order), or None without truth."""
    truth = getattr(load(key.spec.data), "truth", None)
    if truth is None:
        return None
    model = trained(key).model
    aligned, true_points, disparity = align_to_truth(model, truth)
    shared_songs = [str(s) for s in model.songs_[truth.songs_.get_indexer(model.songs_) >= 0]]
    return aligned, true_points, disparity, shared_songs


def truth_fit(key: ModelKey) -> dict:
    """How closely the learned map fits the true one after the best turn, shift and scale: ``disparity``, the
    squared errors left over the true map's squared spread (empty without a true map)."""
    alignment = truth_alignment(key)
    return {} if alignment is None else {"disparity": float(alignment[2])}


def point_models(key: ModelKey, n_songs: int, wait: float = 120.0) -> dict:
    """Held-out log-likelihood of both point models with the other settings of ``key`` (``ll_single``,
    ``ll_dual``): the one on show, and the other as it is trained for the Model radio's next click (trained now,
    in the background run every session shares, when it is not yet and the data train at once). Empty when one
    of them has no score."""
    spec = key.spec
    other = spec._replace(model="dual" if spec.model == "single" else "single")
    found = trained(ModelKey(other))
    if found is None and n_songs <= AUTO_TRAIN_SONGS:
        prefetch(other)
        job = prefetching(other)
        deadline = time.monotonic() + wait
        while job is not None and job.running and time.monotonic() < deadline:
            job.watched()
            job.wait(0.05)
        found = trained(ModelKey(other))
    mine = trained(key).held_out
    if found is None or found.held_out is None or mine is None:
        return {}
    return {f"ll_{spec.model}": float(mine), f"ll_{other.model}": float(found.held_out)}


def cold_start_facts(table: pd.DataFrame) -> dict:
    """The cold-start table's scores by placement, and how many songs were held out."""
    score = dict(zip(table["placement"], table["held-out log-likelihood"].astype(float)))
    return {"cs_songs": int(table["held-out songs"].iloc[0]), "cs_tags": score["tags' mean"],
            "cs_zero": score["at 0"], "cs_random": score["random"]}


@st.cache_data(max_entries=16, show_spinner=False)
def training_songs(data: DataRef, test_size: float) -> pd.DataFrame:
    """The training songs in the order a model fitted on them has (what a live frame's rows are): song (str),
    plays, tags."""
    train, _ = split(data, test_size)
    songs = song_index(train)
    info = song_info(data).reindex(songs)
    return pd.DataFrame({"song": [str(s) for s in songs], "plays": info["plays"].fillna(0).astype(int).to_numpy(),
                         "tags": info["tags"].fillna("").to_numpy()})


def next_song_view(key: ModelKey, position: int, top: int = 15) -> dict:
    """A song's next-song probabilities: for the map (``proba`` per song), the top list, the self-probability,
    and the song's entry and exit points (first two dimensions)."""
    model = trained(key).model
    sid = model.songs_[position]
    proba = model.transition_proba(sid).to_numpy()
    return {
        "proba": proba,
        "top": next_songs(model, sid, top),
        "self": float(proba[position]),
        "entry": model.entry_[position, :2],
        "exit": model.exit_[position, :2],
        "dual": model.model == "dual",
        "allows_self": not model.exclude_self,
    }


def sample_playlist(key: ModelKey, start: int, length: int) -> tuple[list[str], np.ndarray]:
    """A playlist sampled from the model (seeded by the data's seed): song ids and their rows in the song table."""
    model = trained(key).model
    sampled = model.sample(model.songs_[start], length, random_state=np.random.RandomState(key.spec.data.seed))
    return [str(s) for s in sampled], model.songs_.get_indexer(sampled)


def likelihood_table(key: ModelKey) -> pd.DataFrame:
    """Held-out log-likelihood of the model, the true model (when known) and the baselines (rows with a score)."""
    spec = key.spec
    rows = [("LME (this model)", trained(key).held_out)]
    if facts(spec.data, spec.test_size)["has_truth"]:
        rows.append(("true model", true_model_score(spec.data, spec.test_size)))
    rows += list(baselines(spec.data, spec.test_size).items())
    return pd.DataFrame(rows, columns=["model", "held-out log-likelihood"]).dropna()


def tag_points(key: ModelKey) -> tuple[list[str], np.ndarray] | None:
    """Tag names and their points (first two dimensions), or None for a model fitted without tags."""
    model = trained(key).model
    if model.tags_ is None:
        return None
    return [str(t) for t in model.tags_], model.tag_embedding_[:, :2]


def tag_position(key: ModelKey, chosen: list[str]) -> np.ndarray:
    """Where a new song with the ``chosen`` tags lands (first two dimensions)."""
    return trained(key).model.tag_position(chosen)[:2]


def coordinates_csv(key: ModelKey, meta: dict) -> str:
    """Every song's points as CSV, after one comment line of JSON-like settings."""
    import json

    return "# " + json.dumps(meta) + "\n" + song_coordinates(trained(key).model).to_csv(index=False)


def transitions_csv(key: ModelKey, position: int) -> str:
    """P(next song) after the song at ``position``, for every song, as CSV."""
    model = trained(key).model
    proba = model.transition_proba(model.songs_[position])
    return proba.rename("probability").rename_axis("next_song").reset_index().to_csv(index=False)


# --------------------------------------------------------------------------- cold start


class ColdStartSpec(NamedTuple):
    """What identifies a cold-start run: the data, the share of songs held out and the training settings."""

    data: DataRef
    held_share: float
    tag_weight: float
    model: str
    n_components: int
    reg: float
    max_iter: int
    z_approx: int | None = None  # the sidebar's approximate Z (needed above 10,000 songs)


def _cold_starts() -> shared.SharedStore:
    return shared.store("pl.cold_start", 16)


def cold_start_result(spec: ColdStartSpec) -> pd.DataFrame | None:
    """The stored cold-start table for ``spec``, or None before it is run."""
    return _cold_starts().get(spec)


def run_cold_start(spec: ColdStartSpec) -> pd.DataFrame:
    """Hold songs out, train, place them three ways and score them (seconds); stored for every session."""
    pdata = load(spec.data)
    table = cold_start_scores(pdata.playlists, getattr(pdata, "tags", None), held_share=spec.held_share,
                              tag_weight=spec.tag_weight, model=spec.model, n_components=spec.n_components,
                              reg=spec.reg, max_iter=spec.max_iter, z_approx=spec.z_approx,
                              random_state=spec.data.seed)
    _cold_starts().put(spec, table)
    return table


# --------------------------------------------------------------------------- reproduce


def recipe(key: ModelKey) -> Recipe:
    """The song map of a stored model, and the embedcore code that trains it again (to the iteration where it
    was stopped, when it was)."""
    model = trained(key).model
    spec = key.spec
    params = spec.params()
    # stopped: the same schedule (max_iter sets it), ended after the step it was stopped at
    stop = "" if key.stopped_at is None else f", callback=lambda model, iteration, ll: iteration >= {key.stopped_at}"
    songs = np.array([str(s) for s in model.songs_])
    length = session_cut(spec.data)
    cut = "" if length is None else f"""
        from itertools import chain

        from embedcore.io.sets import cut_into_sessions

        # the file's one playlist, cut into sessions of {length} songs as the page cut it
        data.playlists = cut_into_sessions(list(chain.from_iterable(data.playlists)), {length})
"""
    code = f"""
        from embedcore.playlists import LME, split_playlists
{cut}
        train, _ = split_playlists(data.playlists, {spec.test_size!r}, random_state={spec.data.seed})
        model = LME(**{params!r}).fit(train, tags=getattr(data, "tags", None){stop})
        result = {{"embedding": model.embedding_, "songs": np.array([str(s) for s in model.songs_]),
                  "log_likelihood_curve": np.asarray(model.log_likelihood_curve_)}}
        """
    return Recipe("playlists", f"{spec.model}-point LME song map ({spec.n_components} dimensions)",
                  {"embedding": model.embedding_, "songs": songs,
                   "log_likelihood_curve": np.asarray(model.log_likelihood_curve_)},
                  {**params, "test_size": spec.test_size, "stopped_at": key.stopped_at,
                   **({} if length is None else {"session length": length})}, base_ref(spec.data), code,
                  compare={"embedding": "close", "songs": "exact", "log_likelihood_curve": "close"},
                  rtol=1e-7, atol=1e-10)
