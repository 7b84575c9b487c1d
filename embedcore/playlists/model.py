"""The LME estimator: the objective, the near field, the start and the gradient ascent, composed."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from .data import check_playlists, song_index, tag_matrix, transition_counts
from .near_field import near_field
from .objective import (
    MAX_EXACT_Z_SONGS,
    Objective,
    TagPrior,
    Transitions,
    approximate_log_partition,
    exact_log_partition,
    partition_cost,
    uses_approximation,
)
from .optimizer import OptimizationInterrupt, Stopped, gradient_ascent
from .start import LIFT_DIMS, LIFT_SHARE, lift, project, random_start

__all__ = ["LME"]

# m used to score a held-out set too large for the exact Z with a model that has no z_approx.
_SCORE_M = 50


def _refuse_exact_above_the_limit(n_songs: int, z_approx) -> None:
    if n_songs <= MAX_EXACT_Z_SONGS or uses_approximation(n_songs, z_approx):
        return
    cost = partition_cost(n_songs)
    why = ("z_approx is None, so" if z_approx is None else
           f"z_approx={z_approx} is at least a third of the songs, so")
    raise ValueError(
        f"{n_songs:,} songs: {why} Z would be exact, {n_songs:,} x {n_songs:,} = {cost.terms:.1e} kernel terms "
        f"per step (one S x S float64 matrix alone is {cost.dense_bytes / 1e9:.1f} GB). The exact Z "
        f"allows at most {MAX_EXACT_Z_SONGS:,} songs; set z_approx to an integer of at most "
        f"{(n_songs - 1) // 3:,} (50 to 500 is typical) to approximate it."
    )


class LME(BaseEstimator):
    """Latent Markov Embedding of playlists, trained by gradient ascent on the likelihood.

    Each song gets an entry point ``u_s`` and an exit point ``v_s`` (equal in the
    single-point model) and ``P(s | s') = exp(-||u_s - v_s'||^2) / Z(s')``. ``fit``
    composes the parts of :mod:`embedcore.playlists`: the training transitions and tag
    prior, a start (:func:`.random_start`, :func:`.lift`), the :class:`.Objective` (Z exact
    or approximated with a :func:`.near_field`) and :func:`.gradient_ascent`.

    Parameters
    ----------
    n_components : int, default=2
        Dimension of the song space.
    model : {"single", "dual"}, default="single"
    reg : float, default=0.001
        The penalty's weight λ: training maximises
        ``(1/T) sum log P(p_j | p_j-1) - (reg / S) (||U||^2 + ||V||^2)`` over the T training
        transitions and S songs, the average log-likelihood per transition minus λ times the
        average over songs of ``||u_s||^2 + ||v_s||^2`` (in the single model u_s = v_s, so a
        point counts twice). It keeps rarely seen songs near the centre.
    max_iter : int, default=300
    tol : float, default=1e-5
        Stop when the average log-likelihood improves by less than this per accepted step, 5 times running.
    learning_rate : float, default=0.5
        The first step size; the step then grows by 20% after every improving step and halves
        (undoing the step) after a worse one, so its starting value hardly matters.
    exclude_self : bool, default=False
        Leave the song itself out of ``Z`` (no immediate repeats). The default keeps it, as
        the model of Chen et al. does; a single-point song is then its own likeliest successor.
    tag_weight : float, default=0.01
        With tags, the strength of the prior pulling each song to the mean of its tags' points
        (per song, against the average log-likelihood per transition; 1 already clusters songs by tag).
    init : {"lift", "random"}, default="lift"
        "random" starts from small Gaussian points. "lift" first trains in eight
        more dimensions for 30% of ``max_iter`` (room to untangle), then
        projects onto the top principal plane and continues there: a 2-D map
        trained from random points often stays folded in a poorer optimum.
    z_approx : int or None, default=None
        None computes every Z(s') exactly: S x S work per step, allowed up to
        :data:`.MAX_EXACT_Z_SONGS` songs (see :func:`.partition_cost`). An int m
        approximates it for large song sets with S x (3m + successors) work:
        the m songs nearest to the exit point v_s' and the songs actually
        played after s' are summed exactly (they carry almost all of Z, since
        the kernel decays as exp(-d^2)), and the rest is estimated from m
        random landmark songs scaled to their number. Choose m well above the
        effective number of next songs, exp(-log-likelihood per transition). Neighbours and
        landmarks are redrawn every 20 accepted steps (the objective is then
        re-scored, so the step rule compares like with like).
        ``log_likelihood`` reports the exact value up to the same amount of
        work (held-out sources x songs <= MAX_EXACT_Z_SONGS**2) and beyond it
        the same approximation (with m = z_approx, or 50).
    warm_start : bool, default=False
        When True and the model is fitted, ``fit`` continues from its points (on the same
        songs) for ``max_iter`` more iterations instead of starting afresh; the curve and
        ``n_iter_`` go on from where they were.
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    songs_ : pandas Index
        Song ids, in row order.
    embedding_ : ndarray of shape (S, n_components)
        Song points (single model; the entry points for dual).
    entry_, exit_ : ndarray of shape (S, n_components)
        Entry points ``u`` and exit points ``v`` (both models; equal for single).
    tags_ : pandas Index or None
        Tag names, when fitted with tags.
    tag_embedding_ : ndarray of shape (n_tags, n_components) or None
        Tag points: each tag at the centre of its songs.
    log_likelihood_curve_ : ndarray
        Average training log-likelihood per transition at the start and after every accepted step.
    n_iter_ : int
        Iterations run (accepted and rejected steps).
    n_transitions_ : int
        Training transitions.

    Examples
    --------
    >>> from embedcore.playlists import make_planted_playlists
    >>> playlists, truth = make_planted_playlists(40, 300, 6, random_state=0)
    >>> lme = LME(max_iter=200, random_state=0).fit(playlists)
    >>> lme.embedding_.shape
    (40, 2)
    >>> bool(lme.log_likelihood(playlists) > truth.log_likelihood(playlists) - 0.1)
    True
    >>> p = lme.transition_proba("song0001")
    >>> round(float(p.sum()), 6), p.idxmax()
    (1.0, 'song0001')
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "model": [StrOptions({"single", "dual"})],
        "reg": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "exclude_self": ["boolean"],
        "tag_weight": [Interval(Real, 0, None, closed="left")],
        "init": [StrOptions({"lift", "random"})],
        "z_approx": [Interval(Integral, 1, None, closed="left"), None],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_components: int = 2, model: str = "single", reg: float = 0.001, max_iter: int = 300,
                 tol: float = 1e-5, learning_rate: float = 0.5, exclude_self: bool = False,
                 tag_weight: float = 0.01, init: str = "lift", z_approx: int | None = None,
                 warm_start: bool = False, random_state=None):
        self.n_components = n_components
        self.model = model
        self.reg = reg
        self.max_iter = max_iter
        self.tol = tol
        self.learning_rate = learning_rate
        self.exclude_self = exclude_self
        self.tag_weight = tag_weight
        self.init = init
        self.z_approx = z_approx
        self.warm_start = warm_start
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting

    def fit(self, playlists, y=None, *, tags: dict | None = None, callback=None, should_stop=None):
        """Learn song points from playlists (lists of hashable song ids).

        Parameters
        ----------
        playlists : list of lists of song ids, or a table with one playlist per row
            Validated by :func:`.check_playlists`.
        y : None
            Ignored.
        tags : dict or None
            Song id -> list of tags (songs without tags get none).
        callback : callable or None
            ``callback(model, iteration, log_likelihood)`` runs after every accepted step,
            with the model's points set to that step's; returning True stops training,
            keeping the model so far.
        should_stop : callable or None
            Polled between blocks of the work inside a step (tens of milliseconds apart at
            any size); returning True ends training with the points of the last accepted step.

        Returns
        -------
        self
        """
        self._validate_params()
        playlists = check_playlists(playlists, estimator=self)
        songs = song_index(playlists)
        _refuse_exact_above_the_limit(len(songs), self.z_approx)
        warm = self.warm_start and hasattr(self, "entry_")
        if warm and not (len(songs) == len(self.songs_) and songs.equals(self.songs_)):
            raise ValueError("warm_start continues a fit on the same songs, in the same order; these playlists have "
                             f"{len(songs):,} songs where the model has {len(self.songs_):,}. Fit afresh "
                             "(warm_start=False) to learn a new song set.")
        transitions = Transitions.from_counts(transition_counts(playlists, songs))
        rng = check_random_state(self.random_state)
        if warm:
            U, V, A = self.entry_, self.exit_, self.tag_embedding_
            curve, n_iter = list(self.log_likelihood_curve_), int(self.n_iter_)
        else:
            U, V = random_start(len(songs), self.n_components, self.model, rng)
            A, curve, n_iter = None, [], 0
        prior, known_tags = None, self.tags_ if warm else None
        self.tags_ = None
        if tags:
            tm = tag_matrix(songs, tags)
            prior = TagPrior.build(tm.matrix, self.tag_weight)
            if A is None or known_tags is None or not tm.tags.equals(known_tags):
                A = 0.1 * rng.standard_normal((len(tm.tags), self.n_components))
            self.tags_ = tm.tags
        else:
            A = None
        self.songs_ = songs
        self.n_transitions_ = int(transitions.n_total)
        U, V, A, curve, n_iter = self._train(U, V, A, transitions, prior, rng, curve, n_iter, not warm,
                                             callback, should_stop)
        self._set_state(U, V, A, curve)
        self.n_iter_ = n_iter
        return self

    def _train(self, U, V, A, transitions, prior, rng, curve, n_iter, may_lift, callback, should_stop):
        """The lifted phase (when ``init="lift"`` and not warm), then the ascent in the map's dimension."""
        budget, stopped = self.max_iter, False
        n_start = n_iter
        if may_lift and self.init == "lift" and self.max_iter >= 6:
            k = self.n_components

            def lifted(points, B):
                return project(*points, B, k, self.model)

            Uh, Vh, Ah = lift(U, V, A, self.model, rng, LIFT_DIMS)
            Uh, Vh, Ah, curve, n_iter, stopped = self._ascend(
                Uh, Vh, Ah, transitions, prior, rng, int(budget * LIFT_SHARE), curve, n_iter, callback,
                should_stop, view=lifted)
            U, V, A = project(Uh, Vh, Ah, k, self.model)
            budget -= n_iter - n_start
        if budget > 0 and not stopped:
            U, V, A, curve, n_iter, _ = self._ascend(U, V, A, transitions, prior, rng, budget, curve, n_iter,
                                                     callback, should_stop)
        return U, V, A, curve, n_iter

    def _ascend(self, U, V, A, transitions, prior, rng, max_iter, curve, n_iter, callback, should_stop,
                view=None):
        """One gradient ascent from (U, V); returns the last accepted state and whether it was stopped.

        ``view((U, V), A)`` gives the points the callback sees (the projection of lifted ones).
        """
        objective = Objective(transitions, model=self.model, reg=self.reg, exclude_self=self.exclude_self,
                              tag_prior=prior, z_approx=self.z_approx, random_state=rng, should_stop=should_stop)

        def on_step(it, params, evaluation, curve):
            points = objective.points(params)
            self._set_state(*(view(points, evaluation.tag_points) if view else (*points, evaluation.tag_points)),
                            curve)
            return callback(self, it, evaluation.log_likelihood)

        params = (U,) if self.model == "single" else (U, V)
        try:
            result = gradient_ascent(objective, params, max_iter=max_iter, learning_rate=self.learning_rate,
                                     tol=self.tol, refresh=objective.refresh if objective.approximate else None,
                                     callback=None if callback is None else on_step, n_iter=n_iter, curve=curve)
            stopped = False
        except OptimizationInterrupt as interrupt:
            result, stopped = interrupt.result, True
        U, V = objective.points(result.params)
        A = A if result.evaluation is None else result.evaluation.tag_points
        return U, V, A, result.curve, result.n_iter, stopped

    def _set_state(self, U, V, A, curve):
        self.entry_ = U
        self.exit_ = V
        self.embedding_ = U
        self.tag_embedding_ = A
        self.log_likelihood_curve_ = np.array(curve)

    # ------------------------------------------------------------------ using the model

    def _index(self, songs) -> np.ndarray:
        check_is_fitted(self, "entry_")
        idx = self.songs_.get_indexer(list(songs))
        if (idx < 0).any():
            bad = list(songs)[int(np.flatnonzero(idx < 0)[0])]
            raise ValueError(f"Song {bad!r} is not known to the model: it never appeared in training "
                             "(add it with add_song if it has tags).")
        return idx

    def transition_proba(self, song: Hashable) -> pd.Series:
        """P(next = s | current = song) for every song s, as a Series indexed by song id."""
        a = self._index([song])[0]
        logits = -((self.entry_ - self.exit_[a]) ** 2).sum(axis=1)
        if self.exclude_self:
            logits[a] = -np.inf
        p = np.exp(logits - logits.max())
        return pd.Series(p / p.sum(), index=self.songs_)

    def log_likelihood(self, playlists, *, should_stop=None) -> float:
        """Average natural-log probability per transition of ``playlists`` under the model.

        Every song must be known to the model. Held-out playlists with songs it never saw are
        scored through :func:`.scored_transitions`, ``log_likelihood(scored_transitions(test,
        model.songs_).playlists)``, which leaves out each transition that touches one.
        Z is exact (:func:`.exact_log_partition`, in blocks of rows, only for the songs the
        transitions leave) while that is at most ``MAX_EXACT_Z_SONGS**2`` kernel terms, the work
        of one exact training step at the limit; beyond it Z is approximated as in training
        (:func:`.approximate_log_partition`), with m = ``z_approx`` (or 50) and a fixed landmark
        draw, so the same model and playlists give the same score. Neither holds an S x S matrix.
        ``should_stop()`` is polled between blocks; returning True abandons the score (nan).
        """
        check_is_fitted(self, "entry_")
        playlists = check_playlists(playlists, estimator=self)
        counts = transition_counts(playlists, self.songs_)
        C = counts.tocoo()
        U, V = self.entry_, self.exit_
        S = len(U)
        sources = np.unique(C.row)
        log_norm = np.zeros(S)
        try:
            if len(sources) * S <= MAX_EXACT_Z_SONGS**2:
                log_norm[sources] = exact_log_partition(U, V, sources, exclude_self=self.exclude_self,
                                                        should_stop=should_stop)
            else:
                m = min(int(self.z_approx or _SCORE_M), max(S // 3, 1))
                field = near_field(U, V, counts, m, random_state=np.random.RandomState(0), should_stop=should_stop)
                log_norm = approximate_log_partition(U, V, field, exclude_self=self.exclude_self,
                                                     should_stop=should_stop)
        except Stopped:
            return float("nan")
        logp = -((U[C.col] - V[C.row]) ** 2).sum(axis=1) - log_norm[C.row]
        if self.exclude_self:
            logp[C.row == C.col] = -np.inf
        return float((C.data * logp).sum() / C.data.sum())

    def sample(self, start: Hashable, length: int, random_state=None) -> list:
        """A playlist of ``length`` songs starting at ``start``, each drawn from ``transition_proba``."""
        if length < 1:
            raise ValueError(f"length must be at least 1, got {length}.")
        rng = check_random_state(random_state)
        out = [start]
        self._index([start])
        for _ in range(length - 1):
            p = self.transition_proba(out[-1]).to_numpy()
            out.append(self.songs_[rng.choice(len(p), p=p)])
        return out

    def tag_position(self, tags: Sequence) -> np.ndarray:
        """Where a song with these tags (and no playlists) is placed: the mean of its tags' points."""
        check_is_fitted(self, "entry_")
        if self.tags_ is None:
            raise ValueError("The model was fitted without tags.")
        idx = self.tags_.get_indexer(list(tags))
        if len(idx) == 0 or (idx < 0).any():
            bad = [t for t, i in zip(tags, idx) if i < 0]
            raise ValueError(f"Unknown tags {bad}; known tags: {', '.join(map(str, self.tags_[:10]))}..."
                             if bad else "Give at least one tag.")
        return self.tag_embedding_[idx].mean(axis=0)

    def add_song(self, song: Hashable, tags: Sequence) -> LME:
        """Add a song that has tags but no playlists, placed at its tags' mean (cold start)."""
        if song in self.songs_:
            raise ValueError(f"Song {song!r} is already in the model.")
        pos = self.tag_position(tags)
        self.songs_ = self.songs_.append(pd.Index([song], dtype=object))
        entry = np.vstack([self.entry_, pos])
        exit_ = entry if self.model == "single" else np.vstack([self.exit_, pos])
        self._set_state(entry, exit_, self.tag_embedding_, self.log_likelihood_curve_)
        return self
