"""Reading vectors: embedcore.io.read_vectors against pandas.read_csv on the same bytes.

Two shapes: a tall file (100,000 rows of 50 numbers) and a wide one (a single
row of 100,000 numbers), where pandas' cost per column dominates.

And vectors held in one column, as sentence-transformers writes them: 20,000 rows of a
384-number embedding with a title and a topic, as a Parquet list column and as a CSV column
of "[0.1, ...]" cells, each against the same numbers as 384 plain numeric columns in the same format.
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


def _list_column_cases(rng) -> list[Result]:
    n, d = 20_000, 384
    E = rng.standard_normal((n, d)).astype(np.float32)
    labels = pd.DataFrame({"title": [f"title {i}" for i in range(n)], "topic": [f"topic {i % 6}" for i in range(n)]})
    plain = pd.concat([labels, pd.DataFrame(E, columns=[f"x{i}" for i in range(d)])], axis=1)
    in_one = labels.assign(embedding=list(E))
    results = []
    for fmt in ("Parquet", "CSV"):
        if fmt == "Parquet":
            ours_box, ref_box = io.BytesIO(), io.BytesIO()
            in_one.to_parquet(ours_box)
            plain.to_parquet(ref_box)
            ours_data, ref_data = ours_box.getvalue(), ref_box.getvalue()
            name = "e.parquet"
        else:
            cells = ["[" + ", ".join(row) + "]" for row in np.char.mod("%.6f", E).tolist()]
            ours_data = labels.assign(embedding=cells).to_csv(index=False).encode()
            ref_data = plain.to_csv(index=False, float_format="%.6f").encode()
            name = "e.csv"
        assert read_vectors(ours_data, name).X.shape == read_vectors(ref_data, name).X.shape == (n, d)
        ours = best_of(lambda: read_vectors(ours_data, name))
        ref = best_of(lambda: read_vectors(ref_data, name))
        results.append(
            Result(
                f"read_vectors {n:,} x {d} embedding column, {fmt} ({len(ours_data) / 2**20:.0f} MB)",
                ours,
                f"same as {d} numeric columns ({len(ref_data) / 2**20:.0f} MB)",
                ref,
                "one list column against plain columns, both through read_vectors",
            )
        )
    return results


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
    return results + _list_column_cases(rng)
