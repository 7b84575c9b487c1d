"""Same seed, same settings, same machine: every randomised computation gives the same bytes.

Each computation runs in two fresh processes (so no state left in a library, a cache or a
thread pool can make the second run agree), and the SHA-1 of its output is compared; a third
run with another seed must differ, so the test can fail.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT

#: Each case prints the SHA-1 of its output for the seed in SEED.
CASES = {
    "emde": """
        from embedcore import datasets
        from embedcore.emde import EMDE
        d = datasets.load("hotdog")
        out = EMDE(n_hyperplanes=4, n_partitions=16, random_state=SEED).fit(d.vectors).sketch(d.weight_matrix())
        data = out.toarray()
    """,
    "jl": """
        X = np.random.default_rng(0).normal(size=(200, 300))
        from embedcore.foundations import random_projection
        data = np.asarray(random_projection(X, 40, "gaussian", random_state=SEED))
    """,
    "tsne": """
        from embedcore import datasets
        from embedcore.maps import embed
        X = datasets.load("digits").X[:400]
        data = embed(X, "tsne", random_state=SEED, n_iter=250).coords
    """,
    "tsne, two threads as the app runs it": """
        from embedcore import datasets
        from embedcore.maps import embed
        X = datasets.load("digits").X[:400]
        data = embed(X, "tsne", random_state=SEED, n_iter=250, n_jobs=2).coords
    """,
    "umap": """
        from embedcore import datasets
        from embedcore.maps import embed
        X = datasets.load("digits").X[:400]
        data = embed(X, "umap", random_state=SEED).coords
    """,
    "word2vec": """
        from embedcore import datasets
        from embedcore.words import tokenize, train_word2vec
        docs = [tokenize(d) for d in datasets.load("lee").documents[:120]]
        data = train_word2vec(docs, vector_size=20, epochs=2, min_count=2, random_state=SEED).vectors
    """,
    "lme": """
        from embedcore import datasets
        from embedcore.playlists import LME
        p = datasets.load("planted_single").playlists
        data = LME(max_iter=15, random_state=SEED).fit(p).embedding_
    """,
}


def _digest(case: str, seed: int) -> str:
    code = "import hashlib, numpy as np\nSEED = %d\n%s\nprint(hashlib.sha1(np.ascontiguousarray(data).tobytes()).hexdigest())" % (
        seed, textwrap.dedent(CASES[case]))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": "/tmp"})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("case", list(CASES))
def test_same_seed_same_bytes_in_fresh_processes(case):
    first, second, other = _digest(case, 3), _digest(case, 3), _digest(case, 4)
    assert first == second, f"{case}: two runs with seed 3 gave different bytes"
    assert other != first, f"{case}: seed 4 gave the same bytes as seed 3 (is the seed used?)"
