"""The lab's one evaluation protocol (embedcore.evaluation): choice on training rows only, in-fold fitting, intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from embedcore.evaluation import NO_DIFFERENCE, Side, compare, fold_interval


def _spy(calls: list, value=lambda s, fit, ev: 0.0):
    def score(setting, fit, ev):
        calls.append((dict(setting), np.asarray(fit).copy(), np.asarray(ev).copy()))
        return value(setting, fit, ev)
    return score


@pytest.mark.parametrize("fits_on_rows", [True, False])
@pytest.mark.parametrize("inner_splits", [1, 3])
def test_the_chooser_never_sees_the_scoring_rows(fits_on_rows, inner_splits):
    calls: list = []
    side = Side("spied", _spy(calls, lambda s, fit, ev: s["C"] * 0.01), grid=[{"C": c} for c in (0.1, 1.0, 10.0)],
                widen="C", fits_on_rows=fits_on_rows)
    out = compare([side], 40, n_splits=4, n_repeats=2, inner_splits=inner_splits, random_state=3)
    assert len(out.splits) == 8
    start = 0
    for train, test in out.splits:
        # the fold's last call is its held-out score: fitted on the training part, scored on the test fold
        end = next(i for i in range(start, len(calls))
                   if np.array_equal(calls[i][1], train) and np.array_equal(calls[i][2], test))
        choosing = calls[start:end]
        assert choosing, "the setting was not chosen by scoring the grid"
        for _, fit, ev in choosing:
            assert not np.intersect1d(fit, test).size and not np.intersect1d(ev, test).size
            if fits_on_rows:
                assert not np.intersect1d(fit, ev).size  # the inner split keeps its own scoring rows apart
        start = end + 1
    assert start == len(calls)


def test_a_feature_built_from_the_label_does_not_score_above_chance_out_of_fold():
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import TargetEncoder

    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(0, 2, n)
    rows = np.arange(n).astype(str).reshape(-1, 1)  # every row its own category: its target encoding is its label

    def in_fold(setting, fit, ev):
        enc = TargetEncoder(target_type="binary", random_state=0).fit(rows[fit], y[fit])
        model = LogisticRegression(C=setting["C"]).fit(enc.transform(rows[fit]), y[fit])
        return model.score(enc.transform(rows[ev]), y[ev])

    def leaky(setting, fit, ev):  # the encoding learned from every row, the scored ones included
        enc = TargetEncoder(target_type="binary", smooth=1e-6, cv=2, random_state=0)
        enc.fit(rows, y)
        model = LogisticRegression(C=setting["C"]).fit(enc.transform(rows[fit]), y[fit])
        return model.score(enc.transform(rows[ev]), y[ev])

    grid = [{"C": c} for c in (0.1, 1.0, 10.0)]
    out = compare([Side("in fold", in_fold, grid), Side("leaky", leaky, grid)], n, y=y, random_state=0)
    honest, cheat = out.side("in fold"), out.side("leaky")
    assert honest["low"] <= 0.5 + 0.05 and honest["held-out"] < 0.6
    assert cheat["held-out"] > 0.9  # the test can fail: a leak shows
    assert out.difference("leaky", "in fold")["verdict"] == "leaky better than in fold"


def test_a_choice_on_the_grid_edge_is_widened_or_flagged():
    def peak_at_1000(setting, fit, ev):
        return -abs(np.log10(setting["C"]) - 3.0)

    grid = [{"C": c} for c in (0.1, 1.0, 10.0, 100.0)]
    widened = compare([Side("w", peak_at_1000, grid, widen="C")], 30, n_splits=3)
    row = widened.side("w")
    assert row["chosen"] == "C=1000" and row["edge"] == ""
    assert "1000" in row["grid"] and "10000" in row["grid"]  # one step past the peak showed it is inside
    flagged = compare([Side("f", peak_at_1000, grid, widen="C")], 30, n_splits=3, max_widen=0)
    assert flagged.side("f")["chosen"] == "C=100" and flagged.side("f")["edge"] == "C"
    fixed = compare([Side("f", peak_at_1000, grid)], 30, n_splits=3)
    assert fixed.side("f")["edge"] == "C"


def test_a_difference_is_called_only_when_its_interval_excludes_zero():
    rng = np.random.default_rng(1)
    noise = rng.normal(size=400)

    def level(shift):
        return lambda s, fit, ev: shift + float(noise[ev].mean())

    out = compare([Side("high", level(1.0)), Side("low", level(0.0)), Side("same", level(0.0))], 400, n_splits=5,
                  n_repeats=2)
    assert out.difference("high", "low")["verdict"] == "high better than low"
    assert out.difference("low", "high")["verdict"] == "high better than low"
    assert out.difference("low", "same")["verdict"] == NO_DIFFERENCE
    assert out.difference("low", "same")["difference"] == 0.0
    row = out.side("high")
    assert row["low"] < row["held-out"] < row["high"] and row["chosen in"] == "10 of 10 folds"


def test_fold_interval_is_wider_than_the_naive_one():
    values = [0.61, 0.58, 0.66, 0.63, 0.55]
    mean, low, high = fold_interval(values, 0.25)
    naive = fold_interval(values, 0.0)
    assert mean == pytest.approx(np.mean(values))
    assert (high - low) > (naive[2] - naive[1])
    assert np.isnan(fold_interval([0.5], 0.25)[1])


def test_bad_protocols_are_refused_with_a_reason():
    side = Side("a", lambda s, f, e: 0.0)
    with pytest.raises(ValueError, match="own name"):
        compare([side, side], 20)
    with pytest.raises(ValueError, match="too few"):
        compare([side], 5, n_splits=5)
    with pytest.raises(ValueError, match="smallest class"):
        compare([side], 20, y=[0] * 18 + [1] * 2)


# --------------------------------------------------------------------------- the Sets benchmark under the protocol


def _hotdog():
    from embedcore.datasets import load_hotdog

    d = load_hotdog(n_points=60, n_sets=80, seed=0)
    return d, d.weight_matrix()


def test_set_item_vectors_are_learned_from_the_training_sets_only():
    from embedcore.emde import SetBenchmark, item_vector_makers

    d, W = _hotdog()
    makers = item_vector_makers(d.items, d.sets, d.vectors, kinds=("given", "word2vec"))
    seen = []
    spied = {"given": makers["given"],
             "word2vec": lambda rows: seen.append(np.asarray(rows).copy()) or makers["word2vec"](rows)}
    bench = SetBenchmark(W, d.labels, spied)
    out = compare([bench.side("EMDE · word2vec", ("emde", 4, 8), "word2vec", Cs=(0.1, 1.0))], len(d.labels),
                  y=d.labels, n_splits=4, inner_splits=1)
    assert len(seen) == 8  # per outer fold: once for the inner choosing part, once for the whole training part
    for f, (train, test) in enumerate(out.splits):
        inner, outer = seen[2 * f], seen[2 * f + 1]
        assert np.array_equal(outer, train) and not np.intersect1d(outer, test).size
        assert np.isin(inner, train).all() and inner.size < train.size


def test_the_word2vec_vectors_of_an_unseen_item_are_the_centre():
    from embedcore.emde import item_vector_makers

    d, _ = _hotdog()
    make = item_vector_makers(d.items, d.sets, kinds=("word2vec",))["word2vec"]
    rows = np.arange(10)
    V = make(rows)
    names = [str(i) for i in d.items]
    trained = {str(t) for i in rows for t in d.sets[i]}
    unseen = [j for j, n in enumerate(names) if n not in trained]
    assert unseen and np.allclose(V[unseen], V[[j for j in range(len(names)) if j not in unseen]].mean(axis=0))


def test_uploaded_features_score_as_the_in_app_sketch_they_equal():
    from embedcore.emde import EMDE, SetBenchmark, item_vector_makers

    d, W = _hotdog()
    bench = SetBenchmark(W, d.labels, item_vector_makers(d.items, d.sets, d.vectors, kinds=("given",)))
    F = EMDE(n_hyperplanes=4, n_partitions=8, random_state=0).fit(d.vectors).sketch(W)  # raw counts, all buckets
    sides = [bench.side("in app", ("emde", 4, 8), "given", Cs=(0.1, 1.0)),
             bench.features_side("uploaded", F, Cs=(0.1, 1.0))]
    out = compare(sides, len(d.labels), y=d.labels, n_splits=4, inner_splits=1)
    assert out.side("in app")["held-out"] == pytest.approx(out.side("uploaded")["held-out"])
    with pytest.raises(ValueError, match="one row per set"):
        bench.features_side("short", F[:-1])


def test_the_width_experiment_keeps_the_budget_and_ranking_marks_ties():
    from embedcore.emde import SetBenchmark, item_vector_makers, width_sides
    from embedcore.evaluation import ranking

    d, W = _hotdog()
    bench = SetBenchmark(W, d.labels, item_vector_makers(d.items, d.sets, d.vectors, kinds=("given",)))
    sides = width_sides(bench, "given", budget=256, Ks=(2, 4, 8))
    assert [s.name for s in sides] == ["K=2, N=64", "K=4, N=16", "K=8, N=1"]
    mean = bench.side("mean vector", ("mean",), "given", Cs=(1.0,))
    out = compare([*sides, mean], len(d.labels), y=d.labels, n_splits=4, inner_splits=1)
    ranked = ranking(out)
    assert ranked["vs best"].iloc[0] == "best" and ranked["rank"].iloc[0] == 1
    tied = ranked[ranked["vs best"] == "tied with the best"]
    assert (tied["rank"] == 1).all() and (tied["best minus it, low"] <= 0).all()
    below = ranked[ranked["vs best"] == "below the best"]
    assert "mean vector" in set(below["side"]) and (below["best minus it, low"] > 0).all()


# --------------------------------------------------------------------------- the Categories downstream test


def test_a_category_that_names_its_row_predicts_nothing_out_of_fold():
    """Every row its own category and a random target: any encoding learned from the target (target encoding, the
    spectral code) would reproduce the target if it saw the scored rows; fitted in fold, it predicts nothing."""
    from embedcore.spectral import compare_category_encodings

    rng = np.random.default_rng(0)
    n = 120
    frame = pd.DataFrame({"row": [f"r{i % 60}" for i in range(n)], "target": rng.normal(size=n)})
    out = compare_category_encodings(frame, "row", "target", random_state=0, gamma_scales=(1.0,),
                                     models=("random forest",), encodings=("target", "spectral"))
    for side in ("random forest + target", "random forest + spectral"):
        assert out.side(side)["held-out"] < 0.1, side
    assert out.columns["target"] == 1
    assert list(out.differences["b"]) == ["random forest + target"]


def test_the_spectral_code_takes_its_gamma_from_the_rows_it_is_fitted_on():
    from embedcore.spectral import InFoldSpectralCode, wasserstein_distances
    from embedcore.spectral.kernels import category_distributions

    rng = np.random.default_rng(1)
    days = np.array(["Mon", "Tue", "Wed", "Sat", "Sun"])[rng.integers(0, 5, 200)]
    tips = np.where(np.isin(days, ["Sat", "Sun"]), 5.0, 2.0) + rng.normal(size=200)
    half = np.arange(100)
    enc = InFoldSpectralCode(gamma_scale=2.0).fit(days[half].reshape(-1, 1), tips[half])
    _, samples = category_distributions(days[half], tips[half])
    D = wasserstein_distances(samples)
    assert enc.gammas_[0] == pytest.approx(2.0 / np.median(D[~np.eye(len(D), dtype=bool)]))
    other = InFoldSpectralCode(gamma_scale=2.0).fit(days[100:].reshape(-1, 1), tips[100:])
    assert other.gammas_[0] != enc.gammas_[0]  # another fold, another median
    assert enc.transform(days[:3].reshape(-1, 1)).shape == (3, enc.n_components_[0])
