"""Reading vectors: embedcore.io.read_vectors against pandas.read_csv on the same bytes.

Two shapes: a tall file (100,000 rows of 50 numbers) and a wide one (a single
row of 100,000 numbers), where pandas' cost per column dominates.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from embedcore.io import read_vectors
from tests.benchmarks.harness import Result, best_of


def _csv(X: np.ndarray) -> bytes:
    buf = io.StringIO()
    np.savetxt(buf, X, delimiter=",", fmt="%.6f")
    return buf.getvalue().encode()


def run() -> list[Result]:
    rng = np.random.default_rng(0)
    results = []
    for shape, note in [
        ((100_000, 50), "ours validates every row and cell"),
        ((1, 100_000), "ours reads a wide file as one long column"),
    ]:
        data = _csv(rng.standard_normal(shape))
        ours = best_of(lambda: read_vectors(data, "x.csv"))
        ref = best_of(lambda: pd.read_csv(io.BytesIO(data), header=None).to_numpy())
        size = f"{len(data) / 2**20:.0f} MB" if len(data) >= 2**20 else f"{len(data) / 2**10:.0f} kB"
        results.append(
            Result(
                f"read_vectors {shape[0]:,} x {shape[1]:,} CSV ({size})",
                ours,
                "pandas.read_csv (no validation)",
                ref,
                note,
            )
        )
    return results
