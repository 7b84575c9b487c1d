"""Big uploads on the pages that sample them: the page's first full run with the upload, cold caches.

Each figure is one run of the page's script in Streamlit's AppTest after the file is dropped on the
sidebar's uploader (reading the upload, sampling, and every step the page runs before it is idle), next to
the same page with a small upload of the same shape timed in the same run:

* Manifolds: 100,000 x 50 numbers (budget 5 s and 4x a 1,500-point upload),
* Categories, a kernel learned from a table: 2,000 categories in 20,000 rows (budget 5 s and 3x the
  200-category table),
* Words: a 5 MB corpus (budget 8 s; reference: a 0.5 MB corpus).
"""

from __future__ import annotations

import time

import numpy as np

from tests.benchmarks.harness import Result


def _vectors_csv(n: int, d: int = 50, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] += np.repeat(np.arange(10), n // 10 + 1)[:n]  # some structure to unroll
    head = ",".join(f"x{i}" for i in range(d))
    return (head + "\n" + "\n".join(",".join(f"{v:.4f}" for v in row) for row in X) + "\n").encode()


def _category_csv(n_categories: int, rows: int = 20_000, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    cats = rng.integers(0, n_categories, rows)
    y = rng.normal(size=rows) + (cats % 7)
    return ("category,y\n" + "\n".join(f"c{c},{v:.3f}" for c, v in zip(cats, y)) + "\n").encode()


def _corpus(megabytes: float, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(5000)] + ["the", "of", "and", "river", "stone", "light"])
    p = 1.0 / np.arange(1, len(vocab) + 1)
    p /= p.sum()
    out, size = [], 0
    while size < megabytes * 2**20:
        line = " ".join(rng.choice(vocab, 20, p=p))
        out.append(line)
        size += len(line) + 1
    return ("\n".join(out) + "\n").encode()


def page_run(page: str, name: str, blob: bytes, state: dict | None = None) -> float:
    """Seconds of the page's first run after the upload (the upload itself is read on that run)."""
    from streamlit.testing.v1 import AppTest

    from app.services import data as data_service
    from tests.conftest import APP

    data_service.parse_upload.clear()
    at = AppTest.from_file(str(APP), default_timeout=600)
    at.switch_page("app_pages/home.py").run()
    at.sidebar.file_uploader[0].set_value((name, blob, "text/plain")).run()
    for k, v in (state or {}).items():
        at.session_state[k] = v
    at.switch_page(page)
    t = time.perf_counter()
    at.run()
    seconds = time.perf_counter() - t
    problems = [e.value for e in at.exception] + [e.value for e in at.error]
    if problems:
        raise RuntimeError(f"{page} with {name}: {problems[0][:300]}")
    return seconds


CASES = {
    "manifolds": ("Manifolds page, 100,000 x 50 upload", "app_pages/manifolds.py", None,
                  ("small.csv", lambda: _vectors_csv(1_500), "1,500 x 50 upload"),
                  ("big.csv", lambda: _vectors_csv(100_000)), "budget 5 s and 4x"),
    "categories": ("Categories page, 2,000 categories (20,000 rows)", "app_pages/categories.py",
                   {"cat.kind": "learned from a table"},
                   ("c200.csv", lambda: _category_csv(200), "200 categories"),
                   ("c2000.csv", lambda: _category_csv(2_000)), "budget 5 s and 3x"),
    # the generated corpus's tokens (w17, w4012) read as song ids, so the kind guess offers it as playlists
    # and Words keeps its own data unless the upload is chosen under Data set, as done here
    "words": ("Words page, 5 MB corpus", "app_pages/words.py", {"words.dataset": "upload"},
              ("small.txt", lambda: _corpus(0.5), "0.5 MB corpus"),
              ("corpus.txt", lambda: _corpus(5)), "budget 8 s"),
}


def run(only=None) -> list[Result]:
    import sys

    import streamlit as st

    results = []
    for key, (title, page, state, (sname, small_blob, sdesc), (bname, big_blob), budget) in CASES.items():
        if only and key not in only:
            continue
        st.cache_data.clear()
        st.cache_resource.clear()
        small = page_run(page, sname, small_blob(), state)
        big = page_run(page, bname, big_blob(), state)
        results.append(Result(title, big, sdesc, small, f"{budget}: {big / small:.1f}x"))
        print(f"{title}: {big:.2f} s; {sdesc}: {small:.2f} s ({big / small:.1f}x)", file=sys.stderr, flush=True)
    return results


if __name__ == "__main__":
    import sys

    from tests.benchmarks.harness import print_table

    print_table(run(sys.argv[1:] or None))
