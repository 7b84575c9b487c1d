"""The map measures the tours state their claims with."""

from __future__ import annotations

import numpy as np


def test_order_kept_and_far_neighbours_tell_an_unrolled_swiss_roll_from_a_folded_map():
    """The tour's measures of a fold: an unrolled roll (its 2-D parameters) keeps the order of t and puts no
    far-apart points together; the roll's 3-D points seen from the side (x, y) lay its layers over each other."""
    from embedcore import datasets
    from embedcore.metrics import far_neighbours, order_kept

    roll = datasets.make_swiss_roll(n_samples=800, noise=0.0, seed=0)
    t = roll.meta.iloc[:, 0].to_numpy()
    flat = np.column_stack([t, roll.X[:, 1]])  # the sheet laid flat: along the roll, and across it
    assert order_kept(t, flat) > 0.99 and far_neighbours(t, flat) == 0.0
    side = roll.X[:, [0, 1]]  # seen from the side: the turns of the spiral lie over each other
    assert order_kept(t, side) < 0.7 and far_neighbours(t, side) > 0.05
    assert np.isnan(order_kept(np.array(["a"] * 800), flat)) and np.isnan(far_neighbours(np.ones(800), flat))
