"""A generic gradient ascent with a self-tuning step, a callback, and a way to stop it that keeps its work.

The loop knows nothing of playlists: it maximises any objective that maps parameters (an
array, or a tuple of arrays) to an evaluation with a ``value`` to maximise, a ``gradient``
of the same structure as the parameters and a ``log_likelihood`` to record. It is stopped
the way openTSNE's optimiser is: a callback that returns True, or an objective that raises
:class:`Stopped` while it works, ends it with :class:`OptimizationInterrupt`, which carries
the result of the last accepted step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["AscentResult", "OptimizationInterrupt", "Stopped", "gradient_ascent"]


class Stopped(Exception):
    """Raised inside an objective, between blocks of its work, when a ``should_stop()`` hook returns True.

    Examples
    --------
    >>> try:
    ...     raise Stopped()
    ... except Stopped:
    ...     print("stopped between blocks")
    stopped between blocks
    """


class AscentResult(NamedTuple):
    """Where a gradient ascent ended: the last accepted step.

    Examples
    --------
    >>> AscentResult._fields
    ('params', 'evaluation', 'curve', 'n_iter')
    """

    params: Any
    """The parameters of the last accepted step (the starting ones when no step was accepted)."""
    evaluation: Any
    """The objective's evaluation at ``params``; None when even the first evaluation was stopped."""
    curve: list
    """``log_likelihood`` at the start and after every accepted step, after those given to the ascent."""
    n_iter: int
    """Iterations counted so far (accepted and rejected steps), from the ``n_iter`` given to the ascent."""


class OptimizationInterrupt(Exception):
    """The ascent was stopped; ``result`` is the :class:`AscentResult` of the last accepted step.

    Raised when the callback returns True or the objective raises :class:`Stopped`, as
    openTSNE's ``OptimizationInterrupt`` carries the embedding reached so far.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> def objective(x):  # -(x - 3)^2
    ...     return SimpleNamespace(value=-(x - 3.0) ** 2, gradient=-2 * (x - 3.0), log_likelihood=-(x - 3.0) ** 2)
    >>> try:
    ...     gradient_ascent(objective, 0.0, max_iter=100, callback=lambda it, x, ev, curve: it >= 4)
    ... except OptimizationInterrupt as stop:
    ...     print(stop.why, stop.result.n_iter, len(stop.result.curve))
    callback 4 5
    """

    def __init__(self, result: AscentResult, why: str):
        super().__init__(f"gradient ascent stopped by {why} after {result.n_iter} iterations")
        self.result = result
        self.why = why


def _step(params, lr: float, gradient):
    if isinstance(params, tuple):
        return tuple(p + lr * g for p, g in zip(params, gradient))
    return params + lr * gradient


def gradient_ascent(objective: Callable, params, *, max_iter: int, learning_rate: float = 0.5, tol: float = 1e-5,
                    n_stalls: int = 5, refresh: Callable | None = None, refresh_every: int = 20,
                    callback: Callable | None = None, n_iter: int = 0, curve=()) -> AscentResult:
    """Maximise ``objective`` from ``params`` with a self-tuning step.

    Each iteration tries ``params + lr * gradient``. A step that does not lower the value is
    accepted and the step grows by 20%; one that lowers it is undone and the step halves.
    The ascent ends after ``max_iter`` iterations, when ``n_stalls`` accepted steps in a row
    gain less than ``tol``, or when the step falls below 1e-12.

    Parameters
    ----------
    objective : callable
        ``objective(params)`` returns an evaluation with attributes ``value`` (maximised),
        ``gradient`` (structured as ``params``) and ``log_likelihood`` (recorded in the curve).
        It may raise :class:`Stopped` to end the ascent.
    params : ndarray or tuple of ndarrays
        The starting point. It is never modified; every step makes new arrays.
    max_iter : int
        Iterations to run at most (accepted and rejected steps alike).
    learning_rate : float, default=0.5
        The first step size.
    tol : float, default=1e-5
        The gain below which an accepted step counts as a stall.
    n_stalls : int, default=5
        Stalls in a row that end the ascent.
    refresh : callable or None, default=None
        ``refresh(params)`` is called before the first evaluation and after every
        ``refresh_every`` accepted steps, after which the point is evaluated again, so that
        an objective that changes with the point (a redrawn approximation) compares like with like.
    refresh_every : int, default=20
    callback : callable or None, default=None
        ``callback(iteration, params, evaluation, curve)`` runs after every accepted step;
        returning True stops the ascent.
    n_iter, curve : default 0 and ()
        Iterations and curve of earlier ascents this one continues (the lift, a warm start).

    Returns
    -------
    AscentResult

    Raises
    ------
    OptimizationInterrupt
        When ``callback`` returns True or ``objective`` (or ``refresh``) raises :class:`Stopped`;
        its ``result`` is the last accepted step. A step stopped half-way is not counted.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> centre = np.array([3.0, -1.0])
    >>> def objective(x):  # -||x - centre||^2, largest at the centre
    ...     value = -float(((x - centre) ** 2).sum())
    ...     return SimpleNamespace(value=value, gradient=-2.0 * (x - centre), log_likelihood=value)
    >>> result = gradient_ascent(objective, np.zeros(2), max_iter=200)
    >>> np.round(result.params, 3).tolist(), result.curve[0] < result.curve[-1]
    ([3.0, -1.0], True)
    """
    curve = list(curve)
    try:
        if refresh is not None:
            refresh(params)
        evaluation = objective(params)
    except Stopped:
        raise OptimizationInterrupt(AscentResult(params, None, curve, n_iter), "should_stop") from None
    lr = float(learning_rate)
    curve.append(evaluation.log_likelihood)
    accepted = stalls = 0
    it = n_iter
    for it in range(n_iter + 1, n_iter + max_iter + 1):
        trial = _step(params, lr, evaluation.gradient)
        try:
            new = objective(trial)
        except Stopped:  # this step was not finished: keep the last accepted one
            raise OptimizationInterrupt(AscentResult(params, evaluation, curve, it - 1), "should_stop") from None
        if not new.value >= evaluation.value:  # a worse step (or a nan) is undone
            lr *= 0.5
            if lr < 1e-12:
                break
            continue
        gain = new.value - evaluation.value
        params, evaluation = trial, new
        lr *= 1.2
        curve.append(evaluation.log_likelihood)
        accepted += 1
        if refresh is not None and accepted % refresh_every == 0:
            try:
                refresh(params)
                evaluation = objective(params)
            except Stopped:
                raise OptimizationInterrupt(AscentResult(params, evaluation, curve, it), "should_stop") from None
        stalls = stalls + 1 if gain < tol else 0
        if callback is not None and callback(it, params, evaluation, curve):
            raise OptimizationInterrupt(AscentResult(params, evaluation, curve, it), "callback")
        if stalls >= n_stalls:
            break
    return AscentResult(params, evaluation, curve, it)

