"""Latent Markov Embedding: gradients, recovery of planted models, baselines, sampling, tags."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare

from embedcore.playlists import (
    LME,
    MAX_EXACT_Z_SONGS,
    _log_probs,
    baseline_log_likelihoods,
    make_planted_playlists,
    partition_cost,
    random_walk_playlists,
    split_playlists,
    transition_counts,
)


def _objective_parts(model, playlists, seed=0, tags=None):
    from itertools import chain

    songs = pd.Index(pd.unique(pd.Series(list(chain.from_iterable(playlists)), dtype=object)))
    C = transition_counts(playlists, songs)
    n_out = np.asarray(C.sum(axis=1)).ravel()
    rng = np.random.default_rng(seed)
    U, V = rng.standard_normal((len(songs), 2)), rng.standard_normal((len(songs), 2))
    return C, n_out, float(n_out.sum()), U, V


@pytest.mark.parametrize("exclude_self", [False, True])
def test_gradient_matches_finite_differences(exclude_self):
    playlists, _ = make_planted_playlists(25, 60, 6, model="dual", random_state=0)
    m = LME(model="dual", reg=0.05, exclude_self=exclude_self)
    C, n_out, n, U, V = _objective_parts(m, playlists)
    _, _, gU, gV, _ = m._objective(U, V, C, n_out, n)
    eps = 1e-6
    for which, grad in (("U", gU), ("V", gV)):
        for i, j in [(0, 0), (3, 1), (17, 0)]:
            P, M = U.copy(), U.copy()
            Q, R = V.copy(), V.copy()
            if which == "U":
                P[i, j] += eps
                M[i, j] -= eps
                num = (m._objective(P, V, C, n_out, n)[0] - m._objective(M, V, C, n_out, n)[0]) / (2 * eps)
            else:
                Q[i, j] += eps
                R[i, j] -= eps
                num = (m._objective(U, Q, C, n_out, n)[0] - m._objective(U, R, C, n_out, n)[0]) / (2 * eps)
            assert num == pytest.approx(grad[i, j], abs=1e-7), (which, i, j)


def test_single_model_gradient_is_the_sum_of_both_roles():
    playlists, _ = make_planted_playlists(20, 50, 5, random_state=1)
    m = LME(model="single", reg=0.01)
    C, n_out, n, U, _ = _objective_parts(m, playlists)
    _, _, gU, gV, _ = m._objective(U, U, C, n_out, n)
    eps = 1e-6
    P, M = U.copy(), U.copy()
    P[2, 1] += eps
    M[2, 1] -= eps
    num = (m._objective(P, P, C, n_out, n)[0] - m._objective(M, M, C, n_out, n)[0]) / (2 * eps)
    assert num == pytest.approx(gU[2, 1] + gV[2, 1], abs=1e-7)


def test_uniform_baseline_is_exact():
    # d is a training song (a playlist of its own) that no training transition leaves or enters
    playlists = [["a", "b", "c"], ["c", "a"], ["d"], ["d", "a", "b"]]
    base = baseline_log_likelihoods(playlists[:3], playlists[3:])
    assert base["uniform"] == -np.log(4)
    # unigram, add-one: a, b, c are each a target once, d never: (2, 2, 2, 1) / 7
    # Witten-Bell for a -> b: C(a,b)=1, n_a=1, T(a)=1: (1 + 1 * 2/7) / (1 + 1)
    wb_ab = (1 + 1 * 2 / 7) / (1 + 1)
    # d -> a: d is never left in training, so the unigram 2/7
    expected = (np.log(2 / 7) + np.log(wb_ab)) / 2
    assert base["bigram (Witten-Bell)"] == pytest.approx(expected)


def test_planted_single_model_is_recovered_within_0_05_nats_and_beats_bigram():
    playlists, truth = make_planted_playlists(100, 2000, 10, model="single", random_state=0)
    train, test = split_playlists(playlists, 0.2, random_state=0)
    lme = LME(model="single", reg=0.001, max_iter=1500, random_state=0).fit(train)
    ll, ll_true = lme.log_likelihood(test), truth.log_likelihood(test)
    base = baseline_log_likelihoods(train, test)
    assert ll > ll_true - 0.05, (ll, ll_true)
    assert ll > base["bigram (Witten-Bell)"] > base["unigram"] > base["uniform"] - 0.01


def test_dual_beats_single_on_asymmetric_data():
    playlists, truth = make_planted_playlists(80, 1500, 8, model="dual", random_state=3)
    train, test = split_playlists(playlists, 0.2, random_state=0)
    single = LME(model="single", reg=0.001, max_iter=800, random_state=0).fit(train)
    dual = LME(model="dual", reg=0.001, max_iter=2000, random_state=0).fit(train)
    assert dual.log_likelihood(test) > single.log_likelihood(test) + 0.2
    assert dual.log_likelihood(test) > truth.log_likelihood(test) - 0.1
    assert not np.allclose(dual.entry_, dual.exit_)
    np.testing.assert_array_equal(single.entry_, single.exit_)


def test_training_curve_rises_and_callback_can_stop():
    playlists, _ = make_planted_playlists(40, 300, 6, random_state=2)
    seen = []

    def stop_at_25(model, it, ll):
        seen.append((it, ll, model.embedding_.shape))
        return it >= 25

    lme = LME(max_iter=500, random_state=0).fit(playlists, callback=stop_at_25)
    assert lme.n_iter_ <= 26 and seen[-1][0] >= 25 and seen[0][2] == (40, 2)
    # without a penalty the curve is the objective, and every accepted step improves it
    full = LME(max_iter=300, init="random", reg=0.0, random_state=0).fit(playlists)
    assert np.all(np.diff(full.log_likelihood_curve_) >= -1e-12)


def test_sampling_follows_transition_proba():
    playlists, _ = make_planted_playlists(12, 200, 6, random_state=4)
    lme = LME(max_iter=200, random_state=0).fit(playlists)
    start = lme.songs_[0]
    p = lme.transition_proba(start)
    assert p.sum() == pytest.approx(1.0)
    rng = np.random.RandomState(0)
    draws = pd.Series([lme.sample(start, 2, random_state=rng)[1] for _ in range(3000)]).value_counts()
    observed = draws.reindex(p.index, fill_value=0).to_numpy()
    keep = p.to_numpy() * 3000 >= 5
    expected = p.to_numpy()[keep] * 3000
    obs = observed[keep]
    _, pvalue = chisquare(obs, expected * obs.sum() / expected.sum())
    assert pvalue > 0.001


def test_exclude_self_removes_immediate_repeats():
    playlists, _ = make_planted_playlists(15, 100, 5, random_state=5)
    lme = LME(max_iter=50, exclude_self=True, random_state=0).fit(playlists)
    s = lme.songs_[3]
    assert lme.transition_proba(s)[s] == 0.0


def test_tags_place_new_songs_better_than_uniform():
    playlists, truth = make_planted_playlists(120, 2000, 8, n_tags=8, random_state=6)
    held = set(truth.songs_[:10])
    train = [[s for s in p if s not in held] for p in playlists[:1600]]
    train = [p for p in train if len(p) >= 2]
    lme = LME(max_iter=800, reg=0.001, random_state=0).fit(train, tags=truth.song_tags_)
    for s in held:
        lme.add_song(s, truth.song_tags_[s])
    # transitions in unseen playlists that go into a new song
    pairs = [(a, b) for p in playlists[1600:] for a, b in zip(p, p[1:]) if b in held and a not in held]
    assert len(pairs) > 20
    ll = np.mean([np.log(lme.transition_proba(a)[b]) for a, b in pairs])
    assert ll > -np.log(len(lme.songs_)) + 0.5


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m.transition_proba("nope"), "Song 'nope' is not known to the model"),
        (lambda m: m.log_likelihood([["song0000", "unknown"]]), "Song 'unknown' is not known"),
        (lambda m: m.sample("song0000", 0), "length must be at least 1"),
        (lambda m: m.tag_position(["x"]), "fitted without tags"),
    ],
)
def test_validation_messages_after_fit(call, message):
    playlists, _ = make_planted_playlists(10, 30, 4, random_state=7)
    lme = LME(max_iter=20, random_state=0).fit(playlists)
    with pytest.raises(ValueError, match=message):
        call(lme)


def test_fit_validation_messages():
    with pytest.raises(ValueError, match="fewer than 2 songs"):
        LME().fit([["a"], ["b"]])
    with pytest.raises(ValueError, match="not a single string"):
        LME().fit("abc")
    with pytest.raises(ValueError, match="model must be 'single' or 'dual'"):
        LME(model="triple").fit([["a", "b"]])
    with pytest.raises(ValueError, match="init must be 'lift' or 'random'"):
        LME(init="spectral").fit([["a", "b"]])


def test_random_walks_on_a_shipped_graph():
    import networkx as nx

    g = nx.les_miserables_graph()
    walks = random_walk_playlists(g, 200, 6, random_state=0)
    assert len(walks) == 200 and all(len(w) == 6 for w in walks)
    assert all(g.has_edge(a, b) for w in walks for a, b in zip(w, w[1:]))


@pytest.mark.parametrize("exclude_self", [False, True])
def test_approximate_partition_gradient_matches_finite_differences(exclude_self):
    playlists, _ = make_planted_playlists(40, 100, 6, model="dual", random_state=0)
    m = LME(model="dual", reg=0.05, exclude_self=exclude_self, z_approx=5)
    C, n_out, n, U, V = _objective_parts(m, playlists)
    X, L = m._near_field(U, V, C, np.random.RandomState(0))
    _, _, gU, gV, _ = m._objective_approx(U, V, C, n_out, n, None, X, L)
    eps = 1e-6
    for which, grad in (("U", gU), ("V", gV)):
        for i, j in [(0, 0), (4, 1), (17, 0)]:
            P, M = (U if which == "U" else V).copy(), (U if which == "U" else V).copy()
            P[i, j] += eps
            M[i, j] -= eps

            def f(Z):
                args = (Z, V) if which == "U" else (U, Z)
                return m._objective_approx(*args, C, n_out, n, None, X, L)[0]

            assert (f(P) - f(M)) / (2 * eps) == pytest.approx(grad[i, j], abs=1e-7)


def test_approximate_partition_function_stays_close_to_exact():
    playlists, truth = make_planted_playlists(600, 4000, 8, random_state=8)
    train, test = split_playlists(playlists, 0.2, random_state=0)
    exact = LME(max_iter=400, random_state=0).fit(train)
    approx = LME(max_iter=400, z_approx=150, random_state=0).fit(train)
    assert approx.log_likelihood(test) > exact.log_likelihood(test) - 0.1
    assert approx.log_likelihood(test) > baseline_log_likelihoods(train, test)["bigram (Witten-Bell)"]
    with pytest.raises(ValueError, match="z_approx must be None or a positive integer"):
        LME(z_approx=0).fit(train)


def _chain_playlists(n_songs: int, length: int = 8, stride: int = 3) -> list[list[str]]:
    """Playlists of consecutive songs, each starting ``stride`` songs after the last: every song appears."""
    return [[f"s{(i * stride + j) % n_songs}" for j in range(length)] for i in range(n_songs // stride + 1)]


def test_exact_partition_function_is_refused_above_the_limit_before_any_work():
    cost = partition_cost(40_000)
    assert cost["dense_bytes"] == 12_800_000_000 and not cost["exact_allowed"] and cost["terms"] == 1.6e9
    assert partition_cost(40_000, z_approx=50)["approximate"] and not partition_cost(100, z_approx=50)["approximate"]
    playlists = _chain_playlists(MAX_EXACT_Z_SONGS + 1)
    with pytest.raises(ValueError, match=r"10,001 songs: z_approx is None.*at most 10,000 songs; set z_approx"):
        LME(max_iter=1).fit(playlists)
    # an m so large that 3m covers every song would be exact too
    with pytest.raises(ValueError, match=r"z_approx=3334 is at least a third.*at most 3,333"):
        LME(max_iter=1, z_approx=3334).fit(playlists)


def test_should_stop_ends_training_inside_a_long_step_with_bounded_memory():
    import time
    import tracemalloc

    playlists = _chain_playlists(8000)  # exact Z: a step is 6.4e7 kernel terms, about a second
    t0, asked = time.perf_counter(), []

    def should_stop():
        if time.perf_counter() - t0 > 0.3:
            asked.append(asked[0] if asked else time.perf_counter())
            return True
        return False

    tracemalloc.start()
    try:
        lme = LME(max_iter=5, init="random", random_state=0).fit(playlists, should_stop=should_stop)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    waited = time.perf_counter() - asked[0]
    assert waited < 0.5, waited
    # stopped before the first step was accepted: the starting points, no iteration counted
    assert lme.n_iter_ == 0 and lme.embedding_.shape == (8000, 2)
    # the S x S work runs in blocks: a dense 8,000 x 8,000 float32 matrix alone is 256 MB
    assert peak < 120e6, peak


def test_should_stop_keeps_the_last_accepted_step():
    playlists, _ = make_planted_playlists(60, 300, 6, random_state=2)
    seen, polls = [], [0]

    def remember(model, it, ll):
        seen.append((it, model.embedding_.copy()))

    def stop_after_a_while():
        polls[0] += 1
        return polls[0] > 40

    lme = LME(max_iter=500, random_state=0).fit(playlists, callback=remember, should_stop=stop_after_a_while)
    assert 0 < len(seen) < 40 and lme.n_iter_ >= seen[-1][0]
    np.testing.assert_array_equal(lme.embedding_, seen[-1][1])


@pytest.mark.parametrize("exclude_self", [False, True])
def test_held_out_score_below_the_limit_is_the_exact_one(exclude_self):
    playlists, _ = make_planted_playlists(300, 800, 6, random_state=9)
    train, test = split_playlists(playlists, 0.3, random_state=0)
    lme = LME(max_iter=100, exclude_self=exclude_self, random_state=0).fit(train)
    test = [[s for s in p if s in set(lme.songs_)] for p in test]
    C = transition_counts(test, lme.songs_).tocoo()
    logP, _ = _log_probs(lme.entry_, lme.exit_, exclude_self)
    assert lme.log_likelihood(test) == pytest.approx((C.data * logP[C.row, C.col]).sum() / C.data.sum(), abs=1e-10)


def test_held_out_score_above_the_limit_is_approximated_in_bounded_memory():
    import tracemalloc

    S = MAX_EXACT_Z_SONGS + 2000
    playlists = _chain_playlists(S)
    lme = LME(max_iter=3, init="random", z_approx=50, random_state=0).fit(playlists)
    test = playlists  # every song is left: S x S terms, above the exact limit's MAX_EXACT_Z_SONGS**2
    tracemalloc.start()
    try:
        ll = lme.log_likelihood(test)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # a dense S x S float64 matrix is 1.15 GB, and the old scoring held three
    assert peak < 150e6, peak
    # the exact value, computed here a few hundred rows at a time
    C = transition_counts(test, lme.songs_).tocoo()
    U, V = lme.entry_, lme.exit_
    log_z = np.empty(S)
    for a in range(0, S, 500):
        D = -((V[a:a + 500, None, :] - U[None, :, :]) ** 2).sum(axis=2)
        m = D.max(axis=1)
        log_z[a:a + 500] = m + np.log(np.exp(D - m[:, None]).sum(axis=1))
    exact = float((C.data * (-((U[C.col] - V[C.row]) ** 2).sum(axis=1) - log_z[C.row])).sum() / C.data.sum())
    assert ll == pytest.approx(exact, abs=0.05)
    assert lme.log_likelihood(test) == ll  # the same landmarks every time


def _kept_pairs(test, known) -> list[tuple]:
    """The held-out transitions with both songs in ``known``, found one pair at a time (the reference)."""
    return [(a, b) for p in test for a, b in zip(p, p[1:]) if a in known and b in known]


def test_scored_transitions_leave_out_every_transition_that_touches_an_unknown_song():
    from embedcore.playlists import scored_transitions

    test = [["a", "x", "b", "c"], ["x", "y"], ["c", "a", "a"], ["b"]]
    held = scored_transitions(test, ["a", "b", "c"])
    # a -> x -> b is two transitions involving x, never the transition a -> b
    pairs = [(a, b) for p in held.playlists for a, b in zip(p, p[1:])]
    assert sorted(pairs) == sorted(_kept_pairs(test, {"a", "b", "c"})) == [("a", "a"), ("b", "c"), ("c", "a")]
    assert (held.n_scored, held.n_left_out, held.n_total) == (3, 3, 6)
    none = scored_transitions([["x", "y"]], ["a"])
    assert none.playlists == [] and (none.n_scored, none.n_left_out) == (0, 1)


def test_baselines_score_only_transitions_between_training_songs():
    train = [["a", "b", "c"], ["c", "a"]]
    test = [["a", "x", "b"], ["b", "c"]]
    base = baseline_log_likelihoods(train, test)
    # the song set is the training one (a, b, c), and only b -> c is scored
    assert base["uniform"] == -np.log(3)
    # add-one unigram over the training targets b, c, a: (2, 2, 2) / 6
    assert base["unigram"] == pytest.approx(np.log(1 / 3))
    # Witten-Bell for b -> c: C(b,c)=1, n_b=1, T(b)=1: (1 + 1 * 1/3) / (1 + 1)
    assert base["bigram (Witten-Bell)"] == pytest.approx(np.log((1 + 1 / 3) / 2))


def test_lme_and_baselines_are_scored_on_the_same_transitions():
    from embedcore.playlists import scored_transitions, song_index

    playlists, _ = make_planted_playlists(100, 30, 6, random_state=11)
    train, test = split_playlists(playlists, 0.3, random_state=0)
    lme = LME(max_iter=50, random_state=0).fit(train)
    known = set(lme.songs_)
    pairs = _kept_pairs(test, known)
    assert 0 < len(pairs) < sum(len(p) - 1 for p in test)  # some held-out songs were never in training
    np.testing.assert_array_equal(song_index(train), lme.songs_)
    held = scored_transitions(test, lme.songs_)
    assert lme.log_likelihood(held.playlists) == pytest.approx(lme.log_likelihood([list(p) for p in pairs]))
    # the baselines average over the same pairs: the unigram from the training targets, add-one over training songs
    C = transition_counts(train, lme.songs_)
    target = np.asarray(C.sum(axis=0)).ravel() + 1.0
    uni = pd.Series(target / target.sum(), index=lme.songs_)
    base = baseline_log_likelihoods(train, test)
    assert base["uniform"] == -np.log(len(lme.songs_))
    assert base["unigram"] == pytest.approx(np.mean([np.log(uni[b]) for _, b in pairs]))


def test_baselines_with_no_scorable_transition_are_nan():
    base = baseline_log_likelihoods([["a", "b"]], [["x", "y"], ["a"]])
    assert all(np.isnan(v) for v in base.values())


def test_the_penalty_is_lambda_over_the_number_of_songs():
    # what the page's formula and the reg docstring say: (1/T) sum log P - (lambda / S)(||U||^2 + ||V||^2)
    playlists, _ = make_planted_playlists(25, 60, 6, model="dual", random_state=0)
    C, n_out, n, U, V = _objective_parts(None, playlists)
    free = LME(model="dual", reg=0.0)._objective(U, V, C, n_out, n)[0]
    penalised = LME(model="dual", reg=0.3)._objective(U, V, C, n_out, n)[0]
    assert free - penalised == pytest.approx(0.3 / len(U) * ((U**2).sum() + (V**2).sum()))


def test_self_transitions_are_allowed_and_first_in_the_single_model():
    # as in the seed's model, Z(s') sums over every song, s' itself included; at distance 0 it is the likeliest
    playlists, _ = make_planted_playlists(30, 100, 6, random_state=12)
    lme = LME(max_iter=50, random_state=0).fit(playlists)
    for s in lme.songs_[:5]:
        p = lme.transition_proba(s)
        assert p.idxmax() == s and p[s] > 0


# --------------------------------------------------------------------------- reading a fitted model


def test_play_counts_match_a_brute_force_count():
    from embedcore.playlists import play_counts

    rng = np.random.RandomState(0)
    playlists = [[f"s{v}" for v in rng.randint(0, 30, size=rng.randint(1, 9))] for _ in range(200)]
    songs = [f"s{v}" for v in range(35)]  # five songs are never played
    expected = [sum(p.count(s) for p in playlists) for s in songs]
    assert play_counts(playlists, songs).tolist() == expected
    assert play_counts([], ["a"]).tolist() == [0]


def test_song_tag_labels_join_each_songs_tags():
    from embedcore.playlists import song_tag_labels

    assert song_tag_labels(["a", "b", "c"], {"a": ["x", "y"], "c": ["z"]}) == ["x, y", "", "z"]
    assert song_tag_labels(["a"], None) == [""]


def test_procrustes_alignment_undoes_a_similarity_and_matches_scipys_disparity():
    from scipy.spatial import procrustes

    from embedcore.playlists import procrustes_align

    rng = np.random.RandomState(1)
    target = rng.standard_normal((50, 2))
    turn = np.array([[np.cos(0.7), -np.sin(0.7)], [np.sin(0.7), np.cos(0.7)]])
    moved = 2.5 * target @ turn @ np.diag([1, -1]) + [3.0, -1.0]  # rotated, reflected, scaled, shifted
    aligned, disparity = procrustes_align(moved, target)
    np.testing.assert_allclose(aligned, target, atol=1e-10)
    assert disparity == pytest.approx(0.0, abs=1e-20)
    noisy = moved + 0.3 * rng.standard_normal(moved.shape)
    aligned, disparity = procrustes_align(noisy, target)
    assert disparity == pytest.approx(procrustes(target, noisy)[2])
    # no other similarity transform does better than the one returned
    for angle in np.linspace(0, 2 * np.pi, 13):
        r = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        other = (noisy - noisy.mean(0)) @ r
        other = other * (np.trace(other.T @ (target - target.mean(0))) / (other**2).sum()) + target.mean(0)
        assert ((aligned - target) ** 2).sum() <= ((other - target) ** 2).sum() + 1e-9
    with pytest.raises(ValueError, match="same shape"):
        procrustes_align(target[:3], target)


def test_align_to_truth_uses_the_songs_both_models_know():
    from embedcore.playlists import align_to_truth

    playlists, truth = make_planted_playlists(60, 800, 8, random_state=3)
    train = [p for p in playlists if "song0000" not in p]
    lme = LME(max_iter=400, random_state=0).fit(train)
    aligned, true_points, disparity = align_to_truth(lme, truth)
    known = truth.songs_.get_indexer(lme.songs_)
    assert len(aligned) == len(lme.songs_) == (known >= 0).sum() < len(truth.songs_)
    np.testing.assert_array_equal(true_points, truth.embedding_[known, :2])
    assert disparity < 0.1  # planted maps are recovered up to a similarity


def test_next_songs_are_the_top_of_transition_proba():
    from embedcore.playlists import next_songs

    playlists, _ = make_planted_playlists(30, 200, 6, model="dual", random_state=8)
    lme = LME(model="dual", max_iter=100, random_state=0).fit(playlists)
    song = lme.songs_[4]
    top = next_songs(lme, song, top=7)
    p = lme.transition_proba(song)
    assert list(top.columns) == ["next song", "probability"] and len(top) == 7
    assert top["probability"].tolist() == sorted(p.to_numpy(), reverse=True)[:7]
    assert all(p[s] == q for s, q in zip(top["next song"], top["probability"]))


@pytest.mark.parametrize("model", ["single", "dual"])
def test_song_coordinates_hold_every_point(model):
    from embedcore.playlists import song_coordinates

    playlists, _ = make_planted_playlists(20, 100, 5, model=model, random_state=9)
    lme = LME(model=model, n_components=3, max_iter=30, random_state=0).fit(playlists)
    table = song_coordinates(lme)
    columns = ["song", "u1", "u2", "u3"] + (["v1", "v2", "v3"] if model == "dual" else [])
    assert list(table.columns) == columns
    assert table["song"].tolist() == [str(s) for s in lme.songs_]
    np.testing.assert_array_equal(table[["u1", "u2", "u3"]].to_numpy(), lme.entry_)
    if model == "dual":
        np.testing.assert_array_equal(table[["v1", "v2", "v3"]].to_numpy(), lme.exit_)


def test_a_fit_keeps_no_training_data_and_repeats_its_bytes():
    playlists, truth = make_planted_playlists(40, 300, 6, n_tags=4, random_state=10)
    a = LME(max_iter=60, random_state=0).fit(playlists, tags=truth.song_tags_)
    b = LME(max_iter=60, random_state=0).fit(playlists, tags=truth.song_tags_)
    assert not [k for k in vars(a) if k.endswith("_memo")]
    np.testing.assert_array_equal(a.entry_, b.entry_)


# --------------------------------------------------------------------------- the same bytes for the same seed


def _digest(*parts) -> str:
    """A short hash of arrays and plain values, their dtypes and shapes included."""
    import hashlib

    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(f"{part.dtype}{part.shape}".encode())
            h.update(np.ascontiguousarray(part).tobytes())
        else:
            h.update(repr(part).encode())
    return h.hexdigest()[:16]


def _fit_digest(params: dict, data: dict, stop_at=None, polls=None) -> str:
    playlists, truth = make_planted_playlists(**data)
    train, test = split_playlists(playlists, 0.25, random_state=0)
    from embedcore.playlists import scored_transitions

    test = scored_transitions(test, pd.unique(pd.Series([s for p in train for s in p]))).playlists
    tags = truth.song_tags_ if data.get("n_tags") else None
    count = [0]

    def should_stop():
        count[0] += 1
        return polls is not None and count[0] > polls

    callback = None if stop_at is None else (lambda model, it, ll: it >= stop_at)
    lme = LME(**params).fit(train, tags=tags, callback=callback, should_stop=should_stop)
    return _digest(lme.entry_, lme.exit_, lme.tag_embedding_, lme.log_likelihood_curve_, lme.n_iter_,
                   lme.log_likelihood(test))


_SMALL = dict(n_songs=30, n_playlists=120, length=6)

# Small fits through every path of training (lifted and random starts, tags, the approximate Z and its
# redrawn near field, float32 blocks, each way of stopping). A change meant to keep the arithmetic keeps
# these digests; a change of the maths updates them and says why in its commit.
_PINNED = {
    "single, lift, tags": (dict(max_iter=40, random_state=0), dict(_SMALL, n_tags=4, random_state=3), {}),
    "dual, random, exclude_self": (dict(model="dual", init="random", exclude_self=True, max_iter=40, random_state=1),
                                   dict(_SMALL, model="dual", random_state=4), {}),
    "dual, lift, 3-D, tags": (dict(model="dual", n_components=3, max_iter=30, reg=0.01, random_state=2),
                              dict(_SMALL, model="dual", n_tags=3, random_state=5), {}),
    "single, approximate Z": (dict(max_iter=80, z_approx=6, random_state=0),
                              dict(n_songs=60, n_playlists=200, length=6, random_state=6), {}),
    "dual, approximate Z, exclude_self, tags": (
        dict(model="dual", max_iter=60, z_approx=5, exclude_self=True, random_state=3),
        dict(n_songs=50, n_playlists=200, length=6, model="dual", n_tags=3, random_state=7), {}),
    "float32 blocks, 1,200 songs": (dict(max_iter=4, init="random", random_state=0),
                                    dict(n_songs=1200, n_playlists=600, length=6, random_state=8), {}),
    "stopped by the callback while lifted": (dict(max_iter=60, random_state=0), dict(_SMALL, random_state=9),
                                             dict(stop_at=7)),
    "stopped by the callback after the lift": (dict(max_iter=60, random_state=0), dict(_SMALL, random_state=9),
                                               dict(stop_at=30)),
    "stopped by should_stop": (dict(max_iter=60, random_state=0), dict(_SMALL, random_state=9), dict(polls=25)),
    "stopped by should_stop, approximate Z": (dict(max_iter=60, z_approx=5, random_state=0),
                                              dict(n_songs=50, n_playlists=200, length=6, random_state=9),
                                              dict(polls=40)),
}
_DIGESTS = {
    "single, lift, tags": "6a2f6910ae7ff714",
    "dual, random, exclude_self": "0009d50d159b0d57",
    "dual, lift, 3-D, tags": "b9e8b7466a104310",
    "single, approximate Z": "9655fa81711af704",
    "dual, approximate Z, exclude_self, tags": "101ffe7d13d81347",
    "float32 blocks, 1,200 songs": "20bd1f6fd3f94ed0",
    "stopped by the callback while lifted": "e213ef149da67833",
    "stopped by the callback after the lift": "ba803b1bbecbe4f7",
    "stopped by should_stop": "ec92cf8e87530a93",
    "stopped by should_stop, approximate Z": "af6959fb0b92b5a9",
    "planted single": "08dae54159f6ea17",
    "planted dual": "5974d2fb9a3f89e4",
}


@pytest.mark.parametrize("case", list(_PINNED))
def test_a_fit_gives_the_pinned_bytes(case):
    params, data, stops = _PINNED[case]
    assert _fit_digest(params, data, **stops) == _DIGESTS[case]


def test_planted_playlists_give_the_pinned_bytes():
    for model in ("single", "dual"):
        playlists, truth = make_planted_playlists(40, 150, 7, model=model, n_tags=5, random_state=11)
        tags = [truth.song_tags_[s] for s in truth.songs_]
        assert _digest(playlists, tags, truth.entry_, truth.exit_) == _DIGESTS[f"planted {model}"]
