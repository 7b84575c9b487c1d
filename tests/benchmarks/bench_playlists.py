"""LME at the scale of the paper's small yes.com split: 3,000 songs, 130,000 training transitions."""

from __future__ import annotations

import time

from embedcore.playlists import LME, baseline_log_likelihoods, make_planted_playlists, split_playlists
from tests.benchmarks.harness import Result


def run() -> list[Result]:
    playlists, truth = make_planted_playlists(3000, 18000, 9, model="single", random_state=0)
    train, test = split_playlists(playlists, 1 / 9, random_state=0)
    n_train = sum(len(p) - 1 for p in train)
    t = time.perf_counter()
    lme = LME(model="single", max_iter=3000, random_state=0).fit(train)
    seconds = time.perf_counter() - t
    base = baseline_log_likelihoods(train, test)
    note = (f"{n_train:,} transitions; {lme.n_iter_} iterations, {lme.n_iter_ / seconds:.1f} it/s; held-out "
            f"{lme.log_likelihood(test):.3f} vs true model {truth.log_likelihood(test):.3f}, bigram "
            f"{base['bigram (Witten-Bell)']:.3f}, uniform {base['uniform']:.3f} (limit 60 s)")
    results = [Result("LME single, 3,000 songs, to convergence", seconds, "", None, note)]

    # Large song sets: seconds per step with the approximate Z against the exact one.
    big, _ = make_planted_playlists(20000, 40000, 9, model="single", random_state=1)
    per_step = {}
    for z, steps in ((500, 20), (None, 5)):
        t = time.perf_counter()
        m = LME(model="single", max_iter=steps, init="random", z_approx=z, random_state=0).fit(big)
        per_step[z] = (time.perf_counter() - t) / max(m.n_iter_, 1)
    results.append(Result("LME step, 20,000 songs, z_approx=500", per_step[500], "exact Z step", per_step[None],
                          "memory: 20,000 x ~1,000 instead of 20,000 x 20,000 per matrix"))
    return results
