"""Landmark Isomap: the map full Isomap draws, from paths to a hundred landmarks; a graph in pieces said, not
bridged."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import procrustes
from scipy.stats import spearmanr
from sklearn.manifold import Isomap

from embedcore.datasets import make_swiss_roll
from embedcore.isomap import landmark_isomap
from embedcore.maps import ISOMAP_EXACT, embed


def test_landmarks_draw_the_map_full_isomap_draws():
    roll = make_swiss_roll(2000, seed=1)
    full = Isomap(n_neighbors=10).fit_transform(roll.X)
    ours = landmark_isomap(roll.X, 10, random_state=0)
    assert procrustes(full, ours)[2] < 0.01  # the same picture up to turn, flip and scale
    assert abs(spearmanr(ours[:, 0], roll.meta["t"])[0]) > 0.99  # one axis runs along the roll


def test_a_roll_of_50000_points_unrolls_and_the_seed_fixes_the_map():
    roll = make_swiss_roll(50_000, seed=2)
    a = landmark_isomap(roll.X, 10, random_state=0)
    assert a.shape == (50_000, 2) and np.isfinite(a).all()
    assert abs(spearmanr(a[:, 0], roll.meta["t"])[0]) > 0.99
    np.testing.assert_array_equal(a, landmark_isomap(roll.X, 10, random_state=0))


def test_a_graph_in_pieces_is_said_with_its_pieces():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(300, 3)), rng.normal(size=(200, 3)) + 100])
    with pytest.raises(ValueError, match=r"falls into 2 pieces \(the largest holds 300\)"):
        landmark_isomap(X, 8)
    with pytest.raises(ValueError, match="needs more than 8 points"):
        landmark_isomap(X[:5], 8)


def test_embed_keeps_every_path_up_to_its_limit_and_uses_landmarks_past_it():
    roll = make_swiss_roll(ISOMAP_EXACT + 500, seed=3)
    out = embed(roll.X, "isomap", random_state=0)
    assert out.extra.get("landmarks") == 100
    assert abs(spearmanr(out.coords[:, 0], roll.meta["t"])[0]) > 0.99
    small = embed(roll.X[:500], "isomap", random_state=0)
    assert "landmarks" not in small.extra
