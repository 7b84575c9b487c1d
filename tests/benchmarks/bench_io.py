"""Reading vectors: embedcore.io.read_vectors against pandas.read_csv on the same bytes."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from embedcore.io import read_vectors
from tests.benchmarks.harness import Result, best_of


def run() -> list[Result]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100_000, 50))
    buf = io.StringIO()
    np.savetxt(buf, X, delimiter=",", fmt="%.6f")
    data = buf.getvalue().encode()
    ours = best_of(lambda: read_vectors(data, "x.csv"))
    ref = best_of(lambda: pd.read_csv(io.BytesIO(data), header=None).to_numpy())
    return [
        Result(
            f"read_vectors 100k x 50 CSV ({len(data) / 2**20:.0f} MB)",
            ours,
            "pandas.read_csv (no validation)",
            ref,
            "ours validates every row and cell",
        )
    ]
