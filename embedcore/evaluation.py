"""One protocol for every comparison in the lab: tuned alike, scored on held-out rows, with intervals.

Every side of a comparison (an encoding, a model, a kind of word vectors) is a
:class:`Side`: a grid of settings and a ``score(setting, fit_rows, eval_rows)``
function that learns whatever it learns from data (item vectors, a kernel's
gamma, a target encoding, a vocabulary) from ``fit_rows`` only and returns a
score (higher is better) on ``eval_rows``. :func:`compare` then runs the same
procedure for every side:

1. The rows are split into outer folds (``n_splits``-fold, repeated
   ``n_repeats`` times with different shuffles; stratified when labels are
   given). Every side sees the same folds.
2. Inside each outer training part, each side chooses its setting from its
   grid by an inner split of that training part alone (``inner_splits``-fold,
   or one hold-out of a quarter when ``inner_splits=1``). A side that learns
   nothing from the rows (``fits_on_rows=False``: word vectors trained on a
   corpus, scored on word pairs) is chosen on the whole training part. The
   outer test rows are never passed to the chooser.
3. A grid may name one numeric parameter (``widen``) it can grow along: when
   the chosen value is the largest or smallest in the grid, the grid is
   extended one geometric step past that edge and the choice made again (at
   most ``max_widen`` times). A choice still on an edge of a numeric
   parameter with three or more values is flagged.
4. The chosen setting is refitted on the whole outer training part and scored
   on the outer test rows. A side's score is the mean over the outer folds;
   its interval is a t interval over the folds with Nadeau and Bengio's
   correction for overlapping training sets (variance times ``1/J + n_test /
   n_train``). The difference of two sides is taken fold by fold (paired) and
   gets the same interval; "better" is said only when it excludes 0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["Side", "Comparison", "compare", "summarise", "ranking", "outer_splits", "fold_interval", "setting_text", "verdict",
           "NO_DIFFERENCE"]

#: What a comparison says when the interval of a difference holds 0.
NO_DIFFERENCE = "no reliable difference on this data"


@dataclass(frozen=True)
class Side:
    """One side of a comparison.

    Parameters
    ----------
    name : str
        How tables name it.
    score : callable ``(setting, fit_rows, eval_rows) -> float``
        Fits on ``fit_rows`` (integer positions) with ``setting`` (one of
        ``grid``) and returns the score on ``eval_rows``, higher is better.
    grid : sequence of dict
        The settings it is tuned over; ``({},)`` for a side with nothing to tune.
    widen : str or None
        A numeric parameter of the grid that may be extended past its edges.
    fits_on_rows : bool
        False when ``score`` learns nothing from ``fit_rows`` (it only scores
        ``eval_rows``): the setting is then chosen on the training part itself.

    Examples
    --------
    A side whose score is best at the smallest ``alpha``: the grid is widened
    past its lower edge, one factor of ten at a time, up to ``max_widen`` steps.

    >>> side = Side("ridge", lambda setting, fit, ev: -setting["alpha"],
    ...             grid=[{"alpha": 0.1}, {"alpha": 1.0}], widen="alpha")
    >>> row = compare([side], 20, n_splits=4).side("ridge")
    >>> row["chosen"], row["grid"]
    ('alpha=0.0001', '5 settings; alpha in {0.0001, 0.001, 0.01, 0.1, 1}')
    """

    name: str
    score: Callable[[Mapping, np.ndarray, np.ndarray], float]
    grid: Sequence[Mapping] = ({},)
    widen: str | None = None
    fits_on_rows: bool = True


@dataclass
class Comparison:
    """What :func:`compare` measured.

    Attributes
    ----------
    protocol : str
        The procedure in one paragraph, for a page or a report to print.
    folds : DataFrame
        One row per (repeat, fold, side): the chosen setting, its inner
        score, the held-out score, and the rows used.
    sides : DataFrame
        One row per side: held-out mean with its interval (``low``, ``high``),
        the setting chosen most often and in how many folds, the grid it
        searched (widened if it was), and ``edge`` (the parameters whose chosen
        value was still on the grid's edge, empty when none).
    differences : DataFrame
        One row per pair of sides (in the order given): ``difference`` (first
        minus second), its interval and ``verdict``.

    Examples
    --------
    >>> def scorer(shift):
    ...     return lambda setting, fit, ev: shift + float(np.mean(ev)) / 100
    >>> out = compare([Side("plain", scorer(0.0)), Side("shifted", scorer(0.5))], 20, n_splits=4)
    >>> round(float(out.side("shifted")["held-out"]), 3), out.side("shifted")["chosen in"]
    (0.595, '4 of 4 folds')
    >>> out.differences[["a", "b", "difference"]].round(3).values.tolist()
    [['plain', 'shifted', -0.5]]
    >>> out.difference("shifted", "plain")["verdict"]  # either order: the row is turned round
    'shifted better than plain'
    """

    protocol: str
    folds: pd.DataFrame
    sides: pd.DataFrame
    differences: pd.DataFrame
    splits: list = field(default_factory=list, repr=False)
    level: float = 0.95

    def side(self, name: str) -> pd.Series:
        """The summary row of one side."""
        return self.sides.set_index("side").loc[name]

    def difference(self, a: str, b: str) -> pd.Series:
        """The row of ``a`` minus ``b`` (computed the other way round and negated if needed)."""
        d = self.differences
        hit = d[(d["a"] == a) & (d["b"] == b)]
        if len(hit):
            return hit.iloc[0]
        hit = d[(d["a"] == b) & (d["b"] == a)]
        if not len(hit):
            raise KeyError(f"No comparison of {a!r} with {b!r}.")
        row = hit.iloc[0].copy()
        row["a"], row["b"] = a, b
        row["difference"], row["low"], row["high"] = -row["difference"], -row["high"], -row["low"]
        row["verdict"] = verdict(a, b, row["low"], row["high"])
        return row


def setting_text(setting: Mapping) -> str:
    """A setting as a short text: ``"C=10, window=5"``; ``"defaults"`` when there is nothing to tune.

    Examples
    --------
    >>> setting_text({"window": 5, "C": 10.0}), setting_text({})
    ('window=5, C=10', 'defaults')
    """
    if not setting:
        return "defaults"
    return ", ".join(f"{k}={v:g}" if isinstance(v, Real) and not isinstance(v, bool) else f"{k}={v}"
                     for k, v in setting.items())


def fold_interval(values, test_fraction: float, level: float = 0.95) -> tuple[float, float, float]:
    """Mean of per-fold scores and its t interval with Nadeau and Bengio's correction.

    Folds of one data set share training rows, so their scores are not
    independent; the corrected variance ``s^2 (1/J + n_test/n_train)`` widens
    the naive interval accordingly. ``test_fraction`` is ``n_test / n_train``.

    Examples
    --------
    >>> m, lo, hi = fold_interval([0.5, 0.7, 0.6, 0.6], 0.25)
    >>> round(m, 3), lo < m < hi
    (0.6, True)
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan, math.nan
    var = float(x.var(ddof=1)) * (1.0 / x.size + test_fraction)
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1)) * math.sqrt(var)
    return mean, mean - half, mean + half


def verdict(a: str, b: str, low: float, high: float) -> str:
    """What the interval of ``a - b`` allows one to say.

    Examples
    --------
    >>> verdict("x", "y", 0.01, 0.2), verdict("x", "y", -0.1, 0.2)
    ('x better than y', 'no reliable difference on this data')
    """
    if np.isfinite(low) and low > 0:
        return f"{a} better than {b}"
    if np.isfinite(high) and high < 0:
        return f"{b} better than {a}"
    return NO_DIFFERENCE


def _outer_splits(n: int, y, n_splits: int, n_repeats: int, random_state) -> list[tuple[int, int, np.ndarray,
                                                                                          np.ndarray]]:
    from sklearn.model_selection import KFold, StratifiedKFold

    out = []
    base = 0 if random_state is None else int(random_state)
    for r in range(n_repeats):
        if y is not None:
            splitter = StratifiedKFold(n_splits, shuffle=True, random_state=base + r).split(np.zeros(n), y)
        else:
            splitter = KFold(n_splits, shuffle=True, random_state=base + r).split(np.zeros(n))
        out += [(r, f, tr, te) for f, (tr, te) in enumerate(splitter)]
    return out


def _inner_splits(train: np.ndarray, y, inner_splits: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

    yt = None if y is None else np.asarray(y)[train]
    if inner_splits <= 1:
        a, b = train_test_split(np.arange(train.size), test_size=0.25, random_state=seed,
                                stratify=yt if yt is not None and _can_stratify(yt, 4) else None)
        return [(train[a], train[b])]
    if yt is not None and _can_stratify(yt, inner_splits):
        split = StratifiedKFold(inner_splits, shuffle=True, random_state=seed).split(np.zeros(train.size), yt)
    else:
        split = KFold(inner_splits, shuffle=True, random_state=seed).split(np.zeros(train.size))
    return [(train[a], train[b]) for a, b in split]


def outer_splits(n_rows: int, y=None, n_splits: int = 5, n_repeats: int = 1,
                 random_state=0) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) positions :func:`compare` uses for these rows, labels and seed, in its order.

    Examples
    --------
    >>> splits = outer_splits(6, n_splits=3)
    >>> [test.tolist() for train, test in splits]
    [[2, 5], [1, 3], [0, 4]]
    >>> [(train.size, test.size) for train, test in outer_splits(12, y=[0] * 6 + [1] * 6, n_splits=3, n_repeats=2)]
    [(8, 4), (8, 4), (8, 4), (8, 4), (8, 4), (8, 4)]
    """
    return [(tr, te) for _, _, tr, te in _outer_splits(n_rows, y, n_splits, n_repeats, random_state)]


def _can_stratify(y, k: int) -> bool:
    return pd.Series(y).value_counts().min() >= k


def _numeric_values(grid: Sequence[Mapping], key: str) -> list[float]:
    return sorted({float(g[key]) for g in grid if isinstance(g.get(key), Real) and not isinstance(g.get(key), bool)})


def _widened(grid: list[dict], best: Mapping, key: str) -> dict | None:
    """The setting one geometric (or, through zero, arithmetic) step past the edge ``best`` sits on; None if inside."""
    values = _numeric_values(grid, key)
    if len(values) < 2 or key not in best:
        return None
    v = float(best[key])
    if v == values[-1]:
        prev = values[-2]
        new = v * (v / prev) if prev > 0 and v > 0 else v + (v - prev)
    elif v == values[0]:
        nxt = values[1]
        new = v * (v / nxt) if nxt > 0 and v > 0 else v - (nxt - v)
    else:
        return None
    return {**best, key: type(best[key])(new) if isinstance(best[key], float) else new}


def _edges(grid: Sequence[Mapping], best: Mapping) -> list[str]:
    """Numeric parameters (with three or more values in the grid) whose chosen value is the grid's edge."""
    out = []
    for key, v in best.items():
        values = _numeric_values(grid, key)
        if len(values) >= 3 and isinstance(v, Real) and not isinstance(v, bool) and float(v) in (values[0],
                                                                                                  values[-1]):
            out.append(key)
    return out


def _choose(side: Side, train: np.ndarray, y, inner_splits: int, seed: int, max_widen: int):
    """The side's setting chosen on ``train`` alone: (setting, inner score, grid searched, edge parameters)."""
    grid = [dict(g) for g in side.grid]
    if side.fits_on_rows:
        inner = _inner_splits(train, y, inner_splits, seed)
    else:
        inner = [(train, train)]
    scored: list[float] = []

    def evaluate(g):
        vals = [side.score(g, a, b) for a, b in inner]
        return float(np.nanmean(vals)) if np.isfinite(vals).any() else -math.inf

    scored = [evaluate(g) for g in grid]
    for _ in range(max_widen if side.widen else 0):
        best = grid[int(np.argmax(scored))]
        extra = _widened(grid, best, side.widen)
        if extra is None:
            break
        grid.append(extra)
        scored.append(evaluate(extra))
        if int(np.argmax(scored)) != len(grid) - 1:  # the step past the edge did not win: the choice is inside
            break
    i = int(np.argmax(scored))  # ties: the first in grid order
    return grid[i], scored[i], grid, _edges(grid, grid[i])


def compare(sides: Sequence[Side], n_rows: int, *, y=None, n_splits: int = 5, n_repeats: int = 1,
            inner_splits: int = 3, max_widen: int = 3, random_state=0, pairs: Sequence[tuple[str, str]] | None = None,
            level: float = 0.95, bounds=None, progress=None, should_stop=None) -> Comparison:
    """Tune every side alike and score it on held-out rows; intervals for each score and each difference.

    Parameters
    ----------
    sides : sequence of :class:`Side`
    n_rows : int
        Rows the folds split (word pairs, sets, table rows); ``score`` gets positions into them.
    y : array-like, optional
        Class labels: outer and inner folds are stratified by them.
    n_splits, n_repeats : outer folds, and how many times they are drawn (new shuffle each time).
    inner_splits : int
        Folds of the choice inside each outer training part (1: one hold-out of a quarter).
    max_widen : int
        Steps a side's ``widen`` parameter may be extended past the grid's edge.
    random_state : int
        Seeds the shuffles (repeat r uses ``random_state + r``).
    pairs : sequence of (name, name), optional
        Differences to report; by default every pair, in the order given.
    bounds : (float, float), optional
        The score's possible range; each side's interval is clipped to it.
    progress : callable ``(fraction, text)``, optional
        Called after each side of each outer fold.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.normal(size=60)
    >>> def guess(s, fit, ev):  # a constant learned from the fit rows, shrunk by s["k"]
    ...     return -float(np.mean((truth[ev] - s["k"] * truth[fit].mean()) ** 2))
    >>> out = compare([Side("shrunk", guess, [{"k": 0.0}, {"k": 1.0}]), Side("mean", guess, [{"k": 1.0}])], 60)
    >>> list(out.sides["side"]), list(out.differences.columns[:3])
    (['shrunk', 'mean'], ['a', 'b', 'difference'])
    """
    sides = list(sides)
    names = [s.name for s in sides]
    if len(set(names)) != len(names):
        raise ValueError(f"Every side needs its own name; got {names}.")
    if n_splits < 2:
        raise ValueError(f"n_splits must be at least 2 (one part to fit, one to score), got {n_splits}.")
    if n_rows < 2 * n_splits:
        raise ValueError(f"{n_rows} rows are too few for {n_splits}-fold splits; give at least {2 * n_splits}.")
    if y is not None and len(y) != n_rows:
        raise ValueError(f"y has {len(y)} labels for {n_rows} rows.")
    if y is not None and not _can_stratify(np.asarray(y), n_splits):
        raise ValueError(f"The smallest class has {pd.Series(np.asarray(y)).value_counts().min()} rows; "
                         f"{n_splits}-fold stratified splits need at least {n_splits} per class.")
    splits = _outer_splits(n_rows, y, n_splits, n_repeats, random_state)
    rows = []
    total = len(splits) * len(sides)
    for r, f, train, test in splits:
        for side in sides:
            setting, inner, searched, edge = _choose(side, train, y, inner_splits,
                                                     (0 if random_state is None else int(random_state)) + 1000 * r + f,
                                                     max_widen)
            held = float(side.score(setting, train, test))
            rows.append({"repeat": r, "fold": f, "side": side.name, "setting": setting_text(setting),
                         "inner score": inner, "held-out score": held, "train rows": int(train.size),
                         "test rows": int(test.size), "edge": ", ".join(edge),
                         "grid": _grid_text(searched, side.widen), "_setting": setting})
            if should_stop is not None:
                should_stop()
            if progress is not None:
                progress(len(rows) / total, f"{side.name}, fold {f + 1} of repeat {r + 1}")
    folds = pd.DataFrame(rows).drop(columns="_setting")
    if not any(s.fits_on_rows for s in sides):
        inner_text = "the training part itself (the sides learn nothing from the rows, so it is scored directly)"
    elif inner_splits <= 1:
        inner_text = "one hold-out of a quarter of the training part"
    else:
        inner_text = f"{inner_splits}-fold cross-validation inside the training part"
    protocol = (f"{n_splits}-fold {'stratified ' if y is not None else ''}outer split"
                f"{f', repeated {n_repeats} times' if n_repeats > 1 else ''} (seed {random_state}). Each side "
                f"chooses its setting from its grid using the training part alone: {inner_text}. The chosen setting "
                f"is refitted on the training part and scored on the held-out fold. {level:.0%} t intervals over the "
                f"{len(splits)} held-out folds, corrected for their shared training rows (Nadeau and Bengio); a "
                "difference is called only when its interval excludes 0.")
    return summarise(folds, protocol, [(tr, te) for _, _, tr, te in splits], names, pairs, level, bounds)


def summarise(folds: pd.DataFrame, protocol: str, splits: list, names: Sequence[str] | None = None,
              pairs: Sequence[tuple[str, str]] | None = None, level: float = 0.95, bounds=None) -> Comparison:
    """A :class:`Comparison` from the per-fold table of :func:`compare` (or several, concatenated).

    Sides compared separately on the same folds (the same rows, labels and
    seed give the same folds) can be summarised together: their differences are
    paired fold by fold. ``bounds`` (low, high) clips each side's interval to
    the score's possible range (accuracy in [0, 1]).

    Examples
    --------
    Two sides compared in two runs on the same 20 rows, then summarised together:

    >>> def scorer(shift):
    ...     return lambda setting, fit, ev: shift + float(np.mean(ev)) / 100
    >>> first = compare([Side("plain", scorer(0.0))], 20, n_splits=4)
    >>> second = compare([Side("shifted", scorer(0.5))], 20, n_splits=4)
    >>> both = summarise(pd.concat([first.folds, second.folds]), "4-fold split", first.splits)
    >>> both.sides["side"].tolist(), both.differences["verdict"].tolist()
    (['plain', 'shifted'], ['shifted better than plain'])
    """
    names = list(dict.fromkeys(folds["side"])) if names is None else list(names)
    ratio = float(np.mean([te.size / tr.size for tr, te in splits]))
    summary = []
    for name in names:
        mine = folds[folds["side"] == name]
        mean, low, high = fold_interval(mine["held-out score"], ratio, level)
        if bounds is not None:
            low, high = max(low, bounds[0]), min(high, bounds[1])
        counts = Counter(mine["setting"])
        chosen, times = counts.most_common(1)[0]
        edge = sorted({e for v in mine["edge"] for e in v.split(", ") if e})
        summary.append({"side": name, "held-out": mean, "low": low, "high": high, "chosen": chosen,
                        "chosen in": f"{times} of {len(mine)} folds", "inner score": float(mine["inner score"].mean()),
                        "grid": max(mine["grid"], key=len), "edge": ", ".join(edge)})
    pairs = list(pairs) if pairs is not None else [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    diffs = []
    for a, b in pairs:
        mean, low, high = _paired(folds, a, b, ratio, level)
        diffs.append({"a": a, "b": b, "difference": mean, "low": low, "high": high,
                      "verdict": verdict(a, b, low, high)})
    out = Comparison(protocol, folds, pd.DataFrame(summary), pd.DataFrame(diffs, columns=[
        "a", "b", "difference", "low", "high", "verdict"]), splits, level)
    return out


def _paired(folds: pd.DataFrame, a: str, b: str, ratio: float, level: float) -> tuple[float, float, float]:
    key = ["repeat", "fold"]
    xa = folds[folds["side"] == a].set_index(key)["held-out score"]
    xb = folds[folds["side"] == b].set_index(key)["held-out score"]
    return fold_interval((xa - xb.reindex(xa.index)).to_numpy(), ratio, level)


def ranking(result: Comparison) -> pd.DataFrame:
    """The sides best first, each marked against the best by the interval of their paired difference.

    ``vs best`` is "best", "tied with the best" (the interval of best minus it
    holds 0) or "below the best", with that paired difference and its interval
    (``best minus it``, ``... low``, ``... high``); ``rank`` counts only the rows
    below: every row tied with the best shares rank 1.

    Examples
    --------
    >>> def scorer(shift):
    ...     return lambda setting, fit, ev: shift + float(np.mean(ev)) / 100
    >>> out = compare([Side("plain", scorer(0.0)), Side("shifted", scorer(0.5))], 20, n_splits=4)
    >>> ranking(out)[["side", "vs best", "rank"]].values.tolist()
    [['shifted', 'best', 1], ['plain', 'below the best', 2]]
    """
    s = result.sides.sort_values("held-out", ascending=False, kind="stable").reset_index(drop=True)
    if s.empty:
        return s.assign(rank=[], **{"vs best": []})
    ratio = float(np.mean([te.size / tr.size for tr, te in result.splits]))
    best = s["side"].iloc[0]
    marks, means, lows, highs = [], [], [], []
    for name in s["side"]:
        if name == best:
            marks.append("best"), means.append(0.0), lows.append(0.0), highs.append(0.0)
            continue
        mean, low, high = _paired(result.folds, best, name, ratio, result.level)
        means.append(mean), lows.append(low), highs.append(high)
        marks.append("below the best" if np.isfinite(low) and low > 0 else "tied with the best")
    s["vs best"] = marks
    s["best minus it"] = means
    s["best minus it, low"] = lows
    s["best minus it, high"] = highs
    below = np.array([m == "below the best" for m in marks])
    s["rank"] = np.where(below, np.arange(1, len(s) + 1), 1)
    return s


def _grid_text(grid: Sequence[Mapping], widen: str | None) -> str:
    if widen is None:
        return f"{len(grid)} settings"
    values = _numeric_values(grid, widen)
    return f"{len(grid)} settings; {widen} in {{{', '.join(f'{v:g}' for v in values)}}}"
