"""Spectral encoding: the article's worked examples, direct computations, validation messages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.stats import wasserstein_distance
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

from embedcore.datasets import load_liquor_kl, load_weekday_similarity
from embedcore.spectral import (
    SpectralCategoryEncoder,
    candidate_columns,
    category_distributions,
    category_frequencies,
    EIGENGAP_WINDOW,
    choose_code,
    code_columns,
    code_spectrum,
    complete_rows,
    connected_components,
    eigengap,
    fiedler_order,
    fiedler_sweep,
    fiedler_vector,
    gamma_sweep,
    kernel_from_distances,
    laplacian_spectrum,
    lowest_conductance_cut,
    median_distance,
    n_connected_components,
    normalized_laplacian,
    spectral_clusters,
    symmetric_kl_distances,
    wasserstein_distances,
    wasserstein_from_counts,
)

WEEK = load_weekday_similarity()

# Printed in the article (np.linalg.eig, unsorted), for the weekday matrix.
ARTICLE_LAPLACIAN_ROW0 = [1.0, -0.27788501, -0.24053512, -0.21380899, -0.14085904, -0.07049074, -0.040996]
ARTICLE_EIGENVALUES = [0.0, 0.56794799, 1.50908645, 1.08959831, 1.3053149, 1.25586378, 1.27218858]
ARTICLE_ENCODING = np.array([
    [0.22866879, -0.45504284], [0.24416078, -0.4281388], [0.23795901, -0.00102155],
    [0.21778112, 0.36430356], [-0.02474713, 0.66992782], [-0.61238751, -0.09280736],
    [-0.63907128, -0.13963728],
])
ARTICLE_KL_KERNEL_ROW1 = [0.17305426, 0.0, 0.88100529, 0.88477816, 0.85995305, 0.97534746]
ARTICLE_KL_EIGENVALUES = [1.11022302e-16, 9.99583797e-01, 1.22897829e00, 1.27538999e00, 1.24864532e00, 1.24740260e00]


def test_weekday_laplacian_and_spectrum_match_the_article():
    L = normalized_laplacian(WEEK.matrix)
    np.testing.assert_allclose(L[0], ARTICLE_LAPLACIAN_ROW0, atol=1e-8)
    vals, vecs = laplacian_spectrum(WEEK.matrix)
    np.testing.assert_allclose(vals, np.sort(ARTICLE_EIGENVALUES), atol=1e-6)
    # the two smallest non-zero eigenvalues' vectors are the article's encoding, up to sign
    enc = vecs[:, 1:3]
    signs = np.sign((enc * ARTICLE_ENCODING).sum(axis=0))
    np.testing.assert_allclose(enc * signs, ARTICLE_ENCODING, atol=1e-6)
    assert eigengap(vals) == 1  # the article's "substantial gap after the first"


def test_liquor_kl_kernel_with_gamma_20_matches_the_article():
    kl = load_liquor_kl()
    K = kernel_from_distances(kl.matrix, 20)
    np.testing.assert_allclose(K[1], ARTICLE_KL_KERNEL_ROW1, atol=1e-7)
    vals, _ = laplacian_spectrum(K)
    np.testing.assert_allclose(vals, np.sort(ARTICLE_KL_EIGENVALUES), atol=1e-6)


def test_spectrum_orthonormal_and_one_zero_per_component():
    rng = np.random.default_rng(0)
    blocks = [rng.random((4, 4)), rng.random((3, 3)), rng.random((5, 5))]
    A = np.zeros((12, 12))
    start = 0
    for b in blocks:
        b = (b + b.T) / 2
        A[start:start + len(b), start:start + len(b)] = b
        start += len(b)
    np.fill_diagonal(A, 0)
    vals, vecs = laplacian_spectrum(A)
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(12), atol=1e-10)
    assert n_connected_components(vals) == 3
    assert np.all(np.diff(vals) >= -1e-12) and vals.max() <= 2.0


def test_sparse_and_partial_spectrum_agree_with_dense():
    rng = np.random.default_rng(1)
    pts = rng.standard_normal((1800, 2))
    sq = (pts**2).sum(1)
    A = np.exp(-(sq[:, None] + sq[None, :] - 2 * pts @ pts.T))
    np.fill_diagonal(A, 0)
    full_vals, _ = laplacian_spectrum(A)
    part_vals, part_vecs = laplacian_spectrum(A, n_components=6)  # Lanczos path (n > 1500)
    np.testing.assert_allclose(part_vals, full_vals[:6], atol=1e-8)
    sparse_vals, _ = laplacian_spectrum(sp.csr_array(np.where(A > 0.05, A, 0)), n_components=4)
    assert sparse_vals.shape == (4,) and abs(sparse_vals[0]) < 1e-8
    L = normalized_laplacian(sp.csr_array(A))
    np.testing.assert_allclose(L.toarray(), normalized_laplacian(A), atol=1e-12)


def _blobs(n: int, parts: int, seed: int = 0, scale: float = 1.0) -> np.ndarray:
    """An affinity over ``n`` points in ``parts`` far-apart groups (zero affinity between groups)."""
    rng = np.random.default_rng(seed)
    group = np.arange(n) % parts
    pts = rng.standard_normal((n, 2)) + 4.0 * group[:, None]
    sq = (pts**2).sum(1)
    A = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * pts @ pts.T, 0) / scale)
    A[group[:, None] != group[None, :]] = 0.0
    np.fill_diagonal(A, 0)
    return A


@pytest.mark.parametrize("n, parts", [(1600, 1), (700, 1), (700, 3)])
def test_the_smallest_eigenpairs_choose_the_code_the_whole_spectrum_chooses(n, parts):
    """The page computes only the eigenpairs a code can use; every choice made from them is the full spectrum's
    (1,600 nodes: Lanczos; 700: the dense solver for a subset; 3 components: the dense one, every zero found)."""
    A = _blobs(n, parts)
    full_vals, full_vecs = laplacian_spectrum(A)
    vals, vecs = code_spectrum(A)
    assert vals.size == parts + EIGENGAP_WINDOW + 1 and vecs.shape == (n, vals.size)
    np.testing.assert_allclose(vals, full_vals[: vals.size], atol=1e-9)
    assert n_connected_components(vals) == n_connected_components(full_vals) == parts
    for n_components in ("eigengap", 1, 10):
        for keep in (False, True):
            assert choose_code(vals, n_components, keep, n_nodes=n) == choose_code(full_vals, n_components, keep)
    kept = choose_code(vals, 10, False, n_nodes=n).columns
    assert max(kept) < vals.size
    # the same eigenvectors up to sign where the eigenvalue is simple
    simple = [c for c in kept if c >= parts and min(abs(full_vals[c] - full_vals[c - 1]),
                                                   abs(full_vals[c + 1] - full_vals[c])) > 1e-6]
    dots = np.abs((vecs[:, simple] * full_vecs[:, simple]).sum(axis=0))
    np.testing.assert_allclose(dots, 1.0, atol=1e-6)


def test_a_small_graph_gets_every_eigenpair():
    A = _blobs(120, 2)
    vals, vecs = code_spectrum(A)
    assert vals.size == 120 and vecs.shape == (120, 120)


def test_the_eigengap_looks_no_further_than_its_window():
    # a small gap after the 3rd non-trivial eigenvalue, a larger one after the 80th: a code of 80 is not short
    vals = np.concatenate([[0.0], np.linspace(0.10, 0.13, 3), np.linspace(0.30, 0.31, 77), np.linspace(1.2, 1.3, 319)])
    assert eigengap(vals) == 3
    assert eigengap(vals, max_k=100) == 80
    assert eigengap(vals[: 1 + EIGENGAP_WINDOW + 1], n_nodes=vals.size) == 3
    with pytest.raises(ValueError, match="only 10 of the 399"):
        eigengap(vals[:11], n_nodes=vals.size)


@pytest.mark.parametrize(
    "A, message",
    [
        (np.array([[0, -1.0], [-1.0, 0]]), "affinity between '0' and '1' is -1"),
        (np.array([[0, 1.0], [2.0, 0]]), "not symmetric"),
        (np.ones((2, 3)), "must be square"),
        (np.array([[0, np.nan], [np.nan, 0]]), "NaN or infinite"),
    ],
)
def test_laplacian_validation_messages(A, message):
    with pytest.raises(ValueError, match=message):
        normalized_laplacian(A)


def test_wasserstein_kernel_equals_scipy_on_every_pair_both_methods():
    rng = np.random.default_rng(2)
    cats = rng.integers(0, 12, 600)
    y = rng.gamma(2.0, 1.0 + cats / 4)
    labels, samples = category_distributions(cats, y)
    direct = np.array([[wasserstein_distance(a, b) for b in samples] for a in samples])
    for method in ("cdf", "quantile", "auto"):
        np.testing.assert_allclose(wasserstein_distances(samples, method=method), direct, atol=1e-12)
    rounded = [np.round(s) for s in samples]
    direct = np.array([[wasserstein_distance(a, b) for b in rounded] for a in rounded])
    np.testing.assert_allclose(wasserstein_distances(rounded, method="cdf"), direct, atol=1e-12)


def test_kl_kernel_equals_direct_formula():
    rng = np.random.default_rng(3)
    samples = [rng.normal(m, 1, 200) for m in (0, 0.5, 3)]
    D = symmetric_kl_distances(samples, bins=10, smoothing=0.5)
    edges = np.linspace(min(s.min() for s in samples), max(s.max() for s in samples), 11)
    P = []
    for s in samples:
        c = np.histogram(s, bins=edges)[0] + 0.5
        P.append(c / c.sum())
    for i in range(3):
        for j in range(3):
            kl = np.sum(P[i] * np.log(P[i] / P[j])) + np.sum(P[j] * np.log(P[j] / P[i]))
            assert D[i, j] == pytest.approx(kl, abs=1e-10)
    assert D[0, 1] < D[0, 2]


def test_category_distributions_log1p_and_errors():
    cats, samples = category_distributions(["a", "b", "a"], [0.0, 1.0, np.e - 1], transform="log1p")
    assert list(cats) == ["a", "b"] and samples[0].tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="pair up"):
        category_distributions(["a"], [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN or infinite"):
        category_distributions(["a", "b"], [1.0, np.nan])
    with pytest.raises(ValueError, match="log1p needs target values > -1"):
        category_distributions(["a"], [-2.0], transform="log1p")
    with pytest.raises(ValueError, match="gamma must be a positive number"):
        kernel_from_distances(np.zeros((2, 2)), 0)


def _tips_like(n=400, seed=0):
    rng = np.random.default_rng(seed)
    day = rng.choice(["Thur", "Fri", "Sat", "Sun"], n)
    bill = rng.gamma(4, 5, n)
    tip = 0.15 * bill + np.where(np.isin(day, ["Sat", "Sun"]), 1.0, 0.0) + rng.normal(0, 0.3, n)
    return pd.DataFrame({"day": day, "bill": bill}), tip


def test_encoder_fits_transforms_and_handles_unknown():
    X, y = _tips_like()
    enc = SpectralCategoryEncoder(kernel="wasserstein", gamma=2.0, n_components=2).fit(X[["day"]], y)
    assert list(enc.categories_[0]) == ["Fri", "Sat", "Sun", "Thur"]
    Z = enc.transform(pd.DataFrame({"day": ["Sat", "Sun", "Mon"]}))
    assert Z.shape == (3, 2)
    # weekend days land together, away from weekdays
    codes = dict(zip(enc.categories_[0], enc.embedding_[0]))
    assert np.linalg.norm(codes["Sat"] - codes["Sun"]) < np.linalg.norm(codes["Sat"] - codes["Thur"])
    np.testing.assert_allclose(enc.frequencies_[0], [np.mean(X["day"] == d) for d in enc.categories_[0]])
    np.testing.assert_allclose(Z[2], enc.frequencies_[0] @ enc.embedding_[0])
    assert list(enc.get_feature_names_out()) == ["day_spectral0", "day_spectral1"]
    with pytest.raises(ValueError, match="'Mon' was not seen in fit"):
        enc.set_params(handle_unknown="error").transform([["Mon"]])


def test_encoder_precomputed_and_keep_trivial():
    enc = SpectralCategoryEncoder(kernel="precomputed", affinity=WEEK.matrix, categories=WEEK.labels,
                                  n_components=2, keep_trivial=True).fit([["Mon"], ["Sun"]])
    assert enc.n_components_ == [3]
    vals, vecs = laplacian_spectrum(WEEK.matrix)
    np.testing.assert_allclose(enc.transform([["Sat"]])[0], vecs[5, :3])


def test_encoder_in_a_column_transformer_pipeline():
    X, y = _tips_like(600)
    pre = ColumnTransformer([("day", SpectralCategoryEncoder(gamma=2.0), ["day"])], remainder="passthrough")
    score = cross_val_score(make_pipeline(pre, Ridge()), X, y, cv=5).mean()
    no_day = cross_val_score(Ridge(), X[["bill"]], y, cv=5).mean()
    assert score > no_day + 0.05


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(kernel="cosine"), "The 'kernel' parameter of SpectralCategoryEncoder must be a str among"),
        (dict(n_components=0), "The 'n_components' parameter of SpectralCategoryEncoder must be"),
        (dict(gamma=-1.0), "The 'gamma' parameter of SpectralCategoryEncoder must be a float in the range"),
        (dict(bins=1), "The 'bins' parameter"),
        (dict(n_jobs="all"), "The 'n_jobs' parameter"),
        (dict(kernel="precomputed"), "needs affinity="),
        (dict(handle_unknown="ignore"), "The 'handle_unknown' parameter of SpectralCategoryEncoder must be"),
    ],
)
def test_encoder_validation_messages(params, message):
    with pytest.raises(ValueError, match=message):
        SpectralCategoryEncoder(**params).fit([["a"], ["b"]], [1.0, 2.0])


@pytest.mark.parametrize(
    "X, y, error, message",
    [
        ([["a"], ["b"]], None, ValueError, "requires y to be passed, but the target y is None: it learns"),
        ([["a"], ["a"]], [1.0, 2.0], ValueError, "single category"),
        (np.array([[1 + 1j], [2 + 0j]]), [1.0, 2.0], ValueError, "Complex data not supported"),
        ([["a"], ["b"]], [1.0 + 1j, 2.0], ValueError, "Complex data not supported"),
        ([["a"], ["b"]], ["1.5", "lots"], ValueError, "could not convert|Unable to convert"),
        (np.zeros((4, 0)), [1.0, 2.0, 3.0, 4.0], ValueError, r"0 feature\(s\)"),
        (np.zeros((0, 1)), [], ValueError, r"0 sample\(s\)"),
        ([["a"]], [1.0], ValueError, r"1 sample\(s\)"),
        (["a", "b", "a"], [1.0, 2.0, 3.0], ValueError, "Expected a 2-dimensional|Expected 2D array"),
        (pd.DataFrame({"day": ["a", None, "b"]}), [1.0, 2.0, 3.0], ValueError, "contains NaN"),
        (pd.DataFrame({"day": pd.array(["a", pd.NA, "b"], dtype="string")}), [1.0, 2.0, 3.0], ValueError,
         "contains NaN"),
        (np.array([["a"], [None], ["b"]], dtype=object), [1.0, 2.0, 3.0], ValueError, "NaN or None"),
        ([["a"], ["b"]], [1.0, np.inf], ValueError, "Input y contains infinity"),
        (np.array([[{"a": 1}], ["b"]], dtype=object), [1.0, 2.0], TypeError, "must be strings or numbers"),
    ],
)
def test_encoder_refuses_what_it_cannot_encode(X, y, error, message):
    with pytest.raises(error, match=message):
        SpectralCategoryEncoder().fit(X, y)


def test_encoder_transform_checks_the_columns():
    enc = SpectralCategoryEncoder().fit(pd.DataFrame({"day": ["a", "b", "c"] * 3}), np.arange(9.0))
    with pytest.raises(ValueError, match="X has 2 features, but SpectralCategoryEncoder is expecting 1"):
        enc.transform([["a", "b"]])
    with pytest.raises(ValueError, match="contains NaN"):
        enc.transform(pd.DataFrame({"day": [None]}))
    assert enc.transform(pd.DataFrame({"day": ["c", "a"]})).shape == (2, enc.n_components_[0])


def test_the_compiled_distances_run_on_the_threads_asked_for(monkeypatch):
    """numba's own default is every core; the quantile distances use n_jobs (None: one) and give the same bytes."""
    import numba

    from embedcore import _numba_kernels

    real, seen = _numba_kernels.pairwise_quantile_w1, []

    def recording(*args):
        seen.append(numba.get_num_threads())
        return real(*args)

    monkeypatch.setattr(_numba_kernels, "pairwise_quantile_w1", recording)
    r = np.random.default_rng(4)
    samples = [r.standard_normal(int(k)) for k in r.integers(5, 40, size=25)]
    before = numba.get_num_threads()
    one = wasserstein_distances(samples, method="quantile")
    two = wasserstein_distances(samples, method="quantile", n_jobs=2)
    assert seen == [1, min(2, numba.config.NUMBA_NUM_THREADS)]
    assert numba.get_num_threads() == before
    assert one.tobytes() == two.tobytes()


def test_wasserstein_from_counts_equals_the_samples_distances_and_checks_its_input():
    rng = np.random.default_rng(4)
    samples = [rng.integers(0, 9, size=n).astype(float) for n in (5, 30, 12)]
    support = np.unique(np.concatenate(samples))
    counts = np.array([[np.sum(s == v) for v in support] for s in samples])
    D = wasserstein_from_counts(support, counts)
    assert np.array_equal(D, wasserstein_distances(samples, method="cdf"))
    assert np.array_equal(D, wasserstein_from_counts(support, counts, n_jobs=2))
    np.testing.assert_allclose(D[0, 1], wasserstein_distance(samples[0], samples[1]), atol=1e-12)
    with pytest.raises(ValueError, match="strictly increasing"):
        wasserstein_from_counts(support[::-1], counts)
    with pytest.raises(ValueError, match="positive total"):
        wasserstein_from_counts(support, np.vstack([counts, np.zeros(support.size)]))
    with pytest.raises(ValueError, match="support values"):
        wasserstein_from_counts(support, counts[:, :-1])


def test_category_frequencies_weigh_the_unseen_value_code():
    assert category_frequencies(["b", "b", "x"], ["a", "b"]).tolist() == [0.0, 1.0]
    assert category_frequencies(["x"], ["a", "b"]).tolist() == [0.5, 0.5]


def test_precomputed_categories_must_be_distinct():
    with pytest.raises(ValueError, match="names 'a' twice"):
        SpectralCategoryEncoder(kernel="precomputed", affinity=np.ones((2, 2)) - np.eye(2),
                                categories=["a", "a"]).fit([["a"]])


def test_every_parameter_is_validated_as_scikit_learn_does():
    from sklearn.utils.estimator_checks import check_param_validation

    check_param_validation("SpectralCategoryEncoder", SpectralCategoryEncoder())


def test_fiedler_sweep_finds_the_weekend_cut():
    sweep = fiedler_sweep(WEEK.matrix, WEEK.labels)
    assert set(sweep["category"][-2:]) == {"Sat", "Sun"}  # the weekend at one end of the order
    assert set(sweep["category"][:5]) == {"Mon", "Tue", "Wed", "Thu", "Fri"}
    # cut and conductance at every threshold equal the direct sums over crossing edges
    order = [WEEK.labels.index(c) for c in sweep["category"]]
    deg = WEEK.matrix.sum(axis=1)
    for k in range(1, 7):
        S, T = order[:k], order[k:]
        cut = WEEK.matrix[np.ix_(S, T)].sum()
        assert sweep["cut"].iloc[k - 1] == pytest.approx(cut)
        assert sweep["conductance"].iloc[k - 1] == pytest.approx(cut / min(deg[S].sum(), deg[T].sum()))


def test_spectral_clusters_split_weekend():
    labels = spectral_clusters(WEEK.matrix, 2, random_state=0)
    assert labels[5] == labels[6] and labels[0] == labels[1] == labels[2] and labels[0] != labels[5]


def test_sweep_and_clusters_reuse_a_given_spectrum():
    vals, vecs = laplacian_spectrum(WEEK.matrix)
    pd.testing.assert_frame_equal(fiedler_sweep(WEEK.matrix, WEEK.labels, eigenvectors=vecs),
                                  fiedler_sweep(WEEK.matrix, WEEK.labels))
    np.testing.assert_array_equal(spectral_clusters(WEEK.matrix, 2, eigenvectors=vecs), spectral_clusters(WEEK.matrix, 2))


def test_an_isolated_category_is_its_own_component():
    A = np.array([[0, 1.0, 0], [1.0, 0, 0], [0, 0, 0]])
    vals, vecs = laplacian_spectrum(A)
    assert n_connected_components(vals) == 2
    np.testing.assert_allclose(normalized_laplacian(A)[2], 0.0)
    # the zero eigenspace is given as component indicators, largest component first
    np.testing.assert_allclose(np.abs(vecs[:, 0]), [2**-0.5, 2**-0.5, 0], atol=1e-12)
    np.testing.assert_allclose(np.abs(vecs[:, 1]), [0, 0, 1], atol=1e-12)
    assert connected_components(A, ["mon", "tue", "sun"]) == [["mon", "tue"], ["sun"]]


def test_two_blocks_keep_the_component_indicator():
    block = np.ones((3, 3)) - np.eye(3)
    A = np.block([[block, np.zeros((3, 3))], [np.zeros((3, 3)), block]])
    vals, vecs = laplacian_spectrum(A)
    kept = code_columns(vals)
    codes = vecs[:, kept]
    # the code tells the blocks apart: no block is coded all zeros, and the two blocks differ
    assert not np.allclose(codes[:3], 0) and not np.allclose(codes[3:], 0)
    assert np.abs(codes[:3].mean(axis=0) - codes[3:].mean(axis=0)).max() > 0.5
    enc = SpectralCategoryEncoder(kernel="precomputed", affinity=A, categories=list("abcdef")).fit(
        np.array(list("abcdef"))[:, None])
    out = enc.transform(np.array(list("abcdef"))[:, None])
    assert np.abs(out[:3].mean(axis=0) - out[3:].mean(axis=0)).max() > 0.5


def test_a_graph_that_fell_apart_codes_like_one_hot():
    A = np.zeros((4, 4))
    vals, vecs = laplacian_spectrum(A)
    assert n_connected_components(vals) == 4
    kept = code_columns(vals)
    assert kept == [1, 2, 3]
    np.testing.assert_allclose(np.abs(vecs[:, kept]), np.eye(4)[:, 1:], atol=1e-12)


def test_fiedler_vector_is_the_generalised_problems_second_eigenvector():
    # (D - A) v = lambda D v, solved directly: its second eigenvector is D^{-1/2} u_2 up to scale
    from scipy.linalg import eigh as dense_eigh

    rng = np.random.default_rng(3)
    X = rng.random((9, 9))
    A = (X + X.T) / 2
    np.fill_diagonal(A, 0.0)
    D = np.diag(A.sum(axis=1))
    _, V = dense_eigh(D - A, D)
    v = fiedler_vector(A)
    assert abs(np.dot(v, V[:, 1])) / (np.linalg.norm(v) * np.linalg.norm(V[:, 1])) == pytest.approx(1.0)
    np.testing.assert_array_equal(fiedler_order(A), np.argsort(v, kind="stable"))


def test_fiedler_order_puts_the_weekend_at_one_end_and_matches_the_sweep():
    order = fiedler_order(WEEK.matrix)
    names = [WEEK.labels[i] for i in order]
    assert set(names[-2:]) == {"Sat", "Sun"} or set(names[:2]) == {"Sat", "Sun"}
    assert names == list(fiedler_sweep(WEEK.matrix, WEEK.labels)["category"])
    vals, vecs = laplacian_spectrum(WEEK.matrix)
    np.testing.assert_array_equal(fiedler_order(WEEK.matrix, vecs), order)


def test_an_isolated_category_has_fiedler_value_zero():
    A = np.array([[0, 1.0, 0.5, 0], [1.0, 0, 0.2, 0], [0.5, 0.2, 0, 0], [0, 0, 0, 0]])
    assert fiedler_vector(A)[3] == 0.0


def test_lowest_conductance_cut_equals_brute_force_over_every_cut():
    rng = np.random.default_rng(0)
    for _ in range(5):
        X = rng.random((8, 8)) ** 3
        A = (X + X.T) / 2
        np.fill_diagonal(A, 0.0)
        sweep = fiedler_sweep(A)
        order = [int(c) for c in sweep["category"]]
        deg = A.sum(axis=1)
        cond = []
        for k in range(1, 8):
            S, T = order[:k], order[k:]
            cond.append(A[np.ix_(S, T)].sum() / min(deg[S].sum(), deg[T].sum()))
        pos, value = lowest_conductance_cut(sweep)
        assert pos == int(np.argmin(cond)) and value == pytest.approx(min(cond))


def test_no_cut_has_a_conductance_when_no_category_is_similar_to_another():
    assert lowest_conductance_cut(fiedler_sweep(np.zeros((4, 4)))) is None


@pytest.mark.parametrize("vals, n_components, keep_trivial", [
    (ARTICLE_EIGENVALUES, "eigengap", False),
    (ARTICLE_EIGENVALUES, 3, True),
    ([0.0, 0.0, 0.3, 0.35, 1.4, 1.5], "eigengap", False),
    ([0.0, 0.0, 0.0, 0.0], "eigengap", False),
    ([0.0, 1.2, 1.3], 2, False),
])
def test_choose_code_agrees_with_its_parts(vals, n_components, keep_trivial):
    vals = np.sort(vals)
    choice = choose_code(vals, n_components, keep_trivial)
    assert choice.columns == code_columns(vals, n_components, keep_trivial)
    assert choice.n_connected == int(np.sum(vals < 1e-8))
    assert choice.eigengap_k == eigengap(vals)
    if choice.gap_after is None:
        assert max(choice.n_connected, 1) + choice.eigengap_k >= len(vals)
    else:
        # the largest difference between neighbours past the zeros (within eigengap's window) is right after it
        start = choice.n_connected
        window = vals[start: start + max(1, (len(vals) - start) // 2) + 1]
        assert vals[choice.gap_after] - vals[choice.gap_after - 1] == pytest.approx(np.diff(window).max())


def test_choose_code_on_the_article_spectrum():
    choice = choose_code(np.sort(ARTICLE_EIGENVALUES))
    assert choice.columns == [1] and choice.n_connected == 1 and choice.eigengap_k == 1 and choice.gap_after == 2


def test_gamma_sweep_matches_the_spectrum_at_each_gamma():
    kl = load_liquor_kl()
    sweep = gamma_sweep(kl.matrix, 2.0, factors=(0.5, 1.0, 10.0))
    assert sorted(set(sweep["factor"])) == [0.5, 1.0, 10.0]
    for f, sub in sweep.groupby("factor"):
        vals, _ = laplacian_spectrum(kernel_from_distances(kl.matrix, 2.0 * f))
        np.testing.assert_allclose(sub["eigenvalue"].to_numpy(), vals, atol=1e-10)
        assert sub["index"].tolist() == list(range(1, len(vals) + 1))


def test_gamma_sweep_at_a_huge_gamma_has_one_zero_per_category():
    rng = np.random.default_rng(2)
    X = rng.random((7, 7)) + 0.5
    D = X + X.T
    np.fill_diagonal(D, 0.0)
    sweep = gamma_sweep(D, 1.0, factors=(1.0, 1e4))
    zeros = sweep[sweep["eigenvalue"] < 1e-8].groupby("factor").size()
    assert zeros.get(1.0) == 1 and zeros.get(1e4) == 7  # every affinity underflows: seven components


def test_candidate_columns_and_complete_rows():
    frame = pd.DataFrame({"day": ["Mon", "Sat", None, "Sun", "Mon"], "size": [2, 3, 2, 4, 2],
                          "tip": [1.5, 3.25, 2.0, np.nan, 1.0], "bill": np.linspace(10, 50, 5)})
    cats, nums = candidate_columns(frame, max_levels=3)
    assert cats == ["day", "size"]  # size has 3 distinct values; tip and bill more
    assert nums == ["size", "tip", "bill"]
    rows, dropped, levels = complete_rows(frame, "day", "tip")
    assert len(rows) == 3 and dropped == 2 and levels == 2
    assert not rows[["day", "tip"]].isna().any().any()


def test_median_distance_is_the_median_of_positive_off_diagonal_entries():
    rng = np.random.default_rng(1)
    X = rng.random((6, 6))
    D = X + X.T
    D[0, 1] = D[1, 0] = 0.0  # two categories at distance 0 do not count
    np.fill_diagonal(D, 0.0)
    upper = D[np.triu_indices(6, 1)]
    assert median_distance(D) == pytest.approx(np.median(upper[upper > 0]))
    assert median_distance(np.zeros((3, 3))) == 1.0


# ---------------------------------------------------------------- histograms, special kernels, row normalisation


def test_category_histograms_count_every_value_on_one_grid():
    from embedcore.spectral import category_histograms

    rng = np.random.default_rng(3)
    samples = [rng.normal(m, 1.0, size) for m, size in ((0, 40), (2, 25), (5, 1))]
    edges, counts = category_histograms(samples, bins=7)
    pooled = np.concatenate(samples)
    assert edges[0] == pooled.min() and edges[-1] == pooled.max() and len(edges) == 8
    for s, row in zip(samples, counts):  # brute force: numpy's own histogram on the same edges
        np.testing.assert_array_equal(row, np.histogram(s, bins=edges)[0])
    assert counts.sum() == len(pooled)


def test_kl_with_smoothing_by_hand_on_a_tiny_example():
    from embedcore.spectral import smoothed_distributions

    # two bins over [0, 1]: a = {0, 0, 0.2} -> counts (3, 0); b = {0.9} -> (0, 1); smoothing 1
    samples = [np.array([0.0, 0.0, 0.2]), np.array([1.0])]
    p = np.array([4 / 5, 1 / 5])  # (3 + 1, 0 + 1) / 5
    q = np.array([1 / 3, 2 / 3])  # (0 + 1, 1 + 1) / 3
    np.testing.assert_allclose(smoothed_distributions([[3, 0], [0, 1]], 1.0), [p, q])
    by_hand = np.sum(p * np.log(p / q)) + np.sum(q * np.log(q / p))
    D = symmetric_kl_distances(samples, bins=2, smoothing=1.0)
    assert D[0, 1] == pytest.approx(by_hand) and D[1, 0] == pytest.approx(by_hand)
    # more smoothing pulls both towards uniform: a smaller divergence
    assert symmetric_kl_distances(samples, bins=2, smoothing=10.0)[0, 1] < by_hand
    # more bins spread few values thinner, so the same smoothing weighs more: here the divergence shrinks
    assert symmetric_kl_distances(samples, bins=8, smoothing=1.0)[0, 1] < by_hand


@pytest.mark.parametrize("bins, smoothing, message", [
    (1, 0.5, "bins must be"), (2.5, 0.5, "bins must be"), (4, 0.0, "smoothing must be"),
    (4, -1.0, "smoothing must be"), (4, float("nan"), "smoothing must be"),
])
def test_histogram_and_smoothing_validation(bins, smoothing, message):
    with pytest.raises(ValueError, match=message):
        symmetric_kl_distances([np.array([0.0, 1.0]), np.array([2.0])], bins=bins, smoothing=smoothing)


def test_one_hot_kernel_has_every_eigenvalue_zero_and_codes_one_hot():
    from embedcore.spectral import one_hot_kernel

    A = one_hot_kernel(5)
    np.testing.assert_array_equal(normalized_laplacian(A), np.zeros((5, 5)))  # L = 0: every vector is an eigenvector
    vals, vecs = laplacian_spectrum(A)
    assert n_connected_components(vals) == 5 and np.all(vals == 0)
    np.testing.assert_array_equal(vecs, np.eye(5))  # the basis returned: the components' indicators
    kept = code_columns(vals)
    np.testing.assert_array_equal(vecs[:, kept], np.eye(5)[:, 1:])  # one-hot with its first column dropped
    np.testing.assert_array_equal(vecs[:, code_columns(vals, keep_trivial=True)], np.eye(5))


def test_all_alike_kernel_has_no_gap_and_any_rotation_is_an_eigenbasis():
    from embedcore.spectral import all_alike_kernel

    n = 6
    A = all_alike_kernel(n)
    vals, vecs = laplacian_spectrum(A)
    np.testing.assert_allclose(vals, [0.0] + [n / (n - 1)] * (n - 1), atol=1e-12)
    L = normalized_laplacian(A)
    # a random rotation of the eigenvectors after the first is as good an eigenbasis
    Q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(n - 1, n - 1)))
    rotated = vecs[:, 1:] @ Q
    np.testing.assert_allclose(L @ rotated, rotated * (n / (n - 1)), atol=1e-12)
    assert not np.allclose(np.abs(rotated), np.abs(vecs[:, 1:]), atol=1e-3)


@pytest.mark.parametrize("n", [2, 3, 7, 12])
def test_path_spectrum_is_the_dense_eigendecomposition_of_the_path(n):
    from embedcore.spectral import order_distances, path_spectrum

    path = (order_distances(n) == 1).astype(float)
    L = normalized_laplacian(path)
    ref_vals, ref_vecs = np.linalg.eigh(L)  # brute force
    vals, vecs = path_spectrum(n)
    np.testing.assert_allclose(vals, ref_vals, atol=1e-12)
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(n), atol=1e-12)
    np.testing.assert_allclose(L @ vecs, vecs * vals, atol=1e-12)
    # the eigenvalues are distinct, so each eigenvector is the reference's up to sign
    np.testing.assert_allclose(np.abs((vecs * ref_vecs).sum(axis=0)), 1.0, atol=1e-10)
    # D^-1/2 u_2 is a cosine over the order: monotone, the label encoding up to a monotone warp
    fiedler = vecs[:, 1] / np.sqrt(path.sum(axis=1))
    assert np.all(np.diff(fiedler) < 0) or np.all(np.diff(fiedler) > 0)


def test_label_encoding_kernel_tends_to_the_path_as_gamma_grows():
    from embedcore.spectral import order_distances, path_spectrum

    n = 7
    D = order_distances(n)
    np.testing.assert_array_equal(D, np.abs(np.subtract.outer(np.arange(n), np.arange(n))))
    p_vals, p_vecs = path_spectrum(n)
    gaps = []
    for gamma in (1.0, 3.0, 10.0):
        vals, vecs = np.linalg.eigh(normalized_laplacian(kernel_from_distances(D, gamma)))
        gaps.append(np.abs(vals - p_vals).max())
        np.testing.assert_allclose(np.abs((vecs * p_vecs).sum(axis=0)), 1.0, atol=0.05)  # cosine-shaped already
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-3


@pytest.mark.parametrize("make", ["one_hot_kernel", "all_alike_kernel", "order_distances", "path_spectrum"])
@pytest.mark.parametrize("n", [1, 0, 2.0, True])
def test_special_kernels_need_two_categories(make, n):
    from embedcore import spectral

    with pytest.raises(ValueError, match="at least 2"):
        getattr(spectral, make)(n)


def test_spectral_code_normalises_rows_not_columns():
    from embedcore.spectral import spectral_code

    vals, vecs = laplacian_spectrum(WEEK.matrix)
    plain = spectral_code(vecs, [1, 2])
    np.testing.assert_array_equal(plain, vecs[:, 1:3])
    rows = spectral_code(vecs, [1, 2], normalize=True)
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0)
    np.testing.assert_allclose(rows, plain / np.linalg.norm(plain, axis=1, keepdims=True))
    # every row of the whole orthogonal matrix is a unit vector already: nothing to do
    np.testing.assert_allclose(spectral_code(vecs, range(7), normalize=True), vecs, atol=1e-12)
    # a category whose kept entries are all zero keeps a zero code
    np.testing.assert_array_equal(spectral_code(np.array([[0.0, 1.0], [0.0, 0.0]]), [1], True), [[1.0], [0.0]])


def test_encoder_normalize_gives_unit_rows():
    enc = SpectralCategoryEncoder(kernel="precomputed", affinity=WEEK.matrix, categories=WEEK.labels,
                                  n_components=2, normalize=True).fit([["Mon"]])
    codes = enc.transform([[d] for d in WEEK.labels])
    np.testing.assert_allclose(np.linalg.norm(codes, axis=1), 1.0)
    plain = SpectralCategoryEncoder(kernel="precomputed", affinity=WEEK.matrix, categories=WEEK.labels,
                                    n_components=2).fit([["Mon"]]).transform([[d] for d in WEEK.labels])
    np.testing.assert_allclose(codes, plain / np.linalg.norm(plain, axis=1, keepdims=True))


# --------------------------------------------------------------------------- the encoder from counts alone


def _target_counts(cats, y, support):
    return np.array([[np.sum((cats == c) & (y == v)) for v in support] for c in np.unique(cats)])


@pytest.mark.parametrize("kernel", ["wasserstein", "kl"])
def test_from_statistics_gives_the_encoder_fit_gives_on_the_whole_table(kernel):
    from embedcore.datasets import load_tips
    from embedcore.spectral import SpectralCategoryEncoder, category_distributions, category_histograms

    tips = load_tips().frame
    days, y = tips["day"].to_numpy(dtype=object), tips["tip"].to_numpy(dtype=np.float64)
    params = dict(kernel=kernel, gamma=2.0, bins=12, n_components=2)
    fitted = SpectralCategoryEncoder(**params).fit(tips[["day"]], y)
    cats, samples = category_distributions(days, y)
    if kernel == "wasserstein":
        support = np.unique(y)
        counts = _target_counts(days, y, support)
    else:  # the bins fit draws over the pooled range
        support, (_, counts) = None, category_histograms(samples, bins=12)
    enc = SpectralCategoryEncoder.from_statistics(cats, counts, support, feature_name="day", **params)
    assert list(enc.categories_[0]) == list(fitted.categories_[0])
    np.testing.assert_allclose(enc.affinity_[0], fitted.affinity_[0], atol=1e-12)
    np.testing.assert_allclose(enc.eigenvalues_[0], fitted.eigenvalues_[0], atol=1e-10)
    np.testing.assert_allclose(enc.frequencies_[0], fitted.frequencies_[0])
    rows = pd.DataFrame({"day": ["Sat", "Thur", "Mon"]})  # Mon was never seen: the weighted mean code
    np.testing.assert_allclose(enc.transform(rows), fitted.transform(rows), atol=1e-10)
    assert list(enc.get_feature_names_out()) == list(fitted.get_feature_names_out())


def test_from_statistics_refuses_counts_that_cannot_be_a_kernel():
    from embedcore.spectral import SpectralCategoryEncoder

    cats, counts, support = ["a", "b"], np.array([[1, 2], [3, 0]]), [0.0, 1.0]
    with pytest.raises(ValueError, match="needs support="):
        SpectralCategoryEncoder.from_statistics(cats, counts)
    with pytest.raises(ValueError, match="one row per category"):
        SpectralCategoryEncoder.from_statistics(["a"], counts, support)
    with pytest.raises(ValueError, match="'b' has no target values"):
        SpectralCategoryEncoder.from_statistics(cats, [[1, 2], [0, 0]], support)
    with pytest.raises(ValueError, match="names 'a' twice"):
        SpectralCategoryEncoder.from_statistics(["a", "a"], counts, support)
    with pytest.raises(ValueError, match="bins=32 bins"):
        SpectralCategoryEncoder.from_statistics(cats, counts, kernel="kl")
    with pytest.raises(ValueError, match="kernel='precomputed' needs affinity="):
        SpectralCategoryEncoder.from_statistics(cats, counts, support, kernel="precomputed")
    with pytest.raises(ValueError, match=r"affinity has shape \(3, 3\) but there are 2 categories"):
        SpectralCategoryEncoder.from_statistics(cats, [3, 1], kernel="precomputed", affinity=np.eye(3))
    with pytest.raises(ValueError, match="single category"):
        SpectralCategoryEncoder.from_statistics(["a"], [[1, 2]], support)


def test_from_statistics_of_a_given_affinity_weighs_the_unseen_code_by_the_rows():
    """A precomputed kernel with rows per category: the encoder fit on those rows gives, without the rows."""
    from embedcore.spectral import SpectralCategoryEncoder

    counts = np.arange(1, len(WEEK.labels) + 1)
    enc = SpectralCategoryEncoder.from_statistics(WEEK.labels, counts, kernel="precomputed", affinity=WEEK.matrix,
                                                  n_components=2, feature_name="day")
    rows = np.repeat(np.asarray(WEEK.labels, dtype=object), counts).reshape(-1, 1)
    fitted = SpectralCategoryEncoder(kernel="precomputed", affinity=WEEK.matrix, categories=WEEK.labels,
                                     n_components=2).fit(rows)
    np.testing.assert_allclose(enc.frequencies_[0], counts / counts.sum())
    np.testing.assert_allclose(enc.transform([["Wed"], ["never seen"]]), fitted.transform([["Wed"], ["never seen"]]))
    assert enc.distances_ == [None] and enc.gammas_ == [None]
    assert list(enc.feature_names_in_) == ["day"]


def test_median_gamma_is_one_over_the_columns_median_distance():
    from embedcore.datasets import load_tips
    from embedcore.spectral import median_distance

    tips = load_tips().frame
    enc = SpectralCategoryEncoder(gamma="median").fit(tips[["day", "time"]], tips["tip"])
    for D, g, A in zip(enc.distances_, enc.gammas_, enc.affinity_):
        assert g == 1.0 / median_distance(D)
        np.testing.assert_allclose(A, kernel_from_distances(D, g))
    same = SpectralCategoryEncoder(gamma=enc.gammas_[0]).fit(tips[["day"]], tips["tip"])
    np.testing.assert_array_equal(same.affinity_[0], enc.affinity_[0])


def test_code_agreement_ranks_pairs_by_affinity_against_their_codes_distance():
    from embedcore.spectral import code_agreement, laplacian_spectrum

    A = WEEK.matrix
    vecs = laplacian_spectrum(A)[1]
    one = code_agreement(vecs[:, [1]], A)  # the weekday code: the more alike two days, the closer their numbers
    assert one > 0.9
    assert code_agreement(-vecs[:, [1]], A) == one  # an eigenvector's sign changes no distance
    assert code_agreement(vecs[:, 1], A) == one  # one column may come as a vector
    shuffled = vecs[[6, 0, 5, 1, 4, 2, 3], 1]  # the same numbers given to other days
    assert code_agreement(shuffled, A) < 0.5
    assert np.isnan(code_agreement(np.zeros((7, 1)), A))  # every code equal: no order to compare
    with pytest.raises(ValueError, match="7 x 7"):
        code_agreement(vecs[:, [1]], A[:6, :6])
