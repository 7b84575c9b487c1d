"""Word vectors from PMI: the matrix against a direct computation, SVD weighting, queries,
evaluation, label embedding and every validation message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from embedcore.words import (
    LabelEmbedding,
    add_distance,
    PMIWordVectors,
    build_vocabulary,
    compare_document_features,
    compare_word_vectors,
    word_vector_similarities,
    cooccurrence,
    cooccurrence_at_distance,
    cooccurrence_of_distances,
    document_coordinates,
    evaluate_word_pairs,
    pmi_matrix,
    smooth_idf,
    term_counts,
    token_ids,
    tokenize,
    word_clusters,
)

TOY = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog", "the mat and the log"]


def _direct_window_counts(docs, vocab, window, weighted):
    V = len(vocab)
    C = np.zeros((V, V))
    for toks in docs:
        for i, a in enumerate(toks):
            for j in range(i + 1, min(i + window + 1, len(toks))):
                b = toks[j]
                if a in vocab and b in vocab:
                    w = 1 / (j - i) if weighted else 1.0
                    C[vocab[a], vocab[b]] += w
                    C[vocab[b], vocab[a]] += w
    return C


@pytest.mark.parametrize("window", [1, 2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_window_cooccurrence_matches_loops(window, weighted):
    docs = [tokenize(d) for d in TOY]
    counts = build_vocabulary(docs)
    vocab = {w: i for i, w in enumerate(counts.index)}
    C = cooccurrence(docs, pd.Index(counts.index), window=window, weighted=weighted).toarray()
    np.testing.assert_allclose(C, _direct_window_counts(docs, vocab, window, weighted))


@pytest.mark.parametrize("weighted", [False, True])
def test_a_window_is_the_sum_of_its_distances_and_each_distance_counts_pairs_that_far_apart(weighted):
    docs = [tokenize(d) for d in TOY * 2]
    counts = build_vocabulary(docs)
    index = pd.Index(counts.index)
    vocab = {w: i for i, w in enumerate(index)}
    ids, offsets = token_ids(docs, index)
    parts = [cooccurrence_at_distance(ids, offsets, len(index), d) for d in (1, 2, 3)]
    # distance d alone: the pairs within d minus those within d - 1
    for d, part in enumerate(parts, start=1):
        within = _direct_window_counts(docs, vocab, d, False) - _direct_window_counts(docs, vocab, d - 1, False)
        assert np.array_equal(part.toarray(), within), d
        assert (part != part.T).nnz == 0
    for window in (1, 2, 3):
        summed = cooccurrence_of_distances(parts[:window], weighted=weighted)
        assert (summed != cooccurrence(docs, index, window=window, weighted=weighted)).nnz == 0
        np.testing.assert_allclose(summed.toarray(), _direct_window_counts(docs, vocab, window, weighted))
    grown = None  # a window counted from the one below it, as the Words page keeps them: the same sums
    for d, part in enumerate(parts, start=1):
        grown = add_distance(grown, part, d, weighted=weighted)
        assert np.array_equal(grown.toarray(), cooccurrence_of_distances(parts[:d], weighted=weighted).toarray())
    with pytest.raises(ValueError, match="distance must be a positive integer, got 0"):
        cooccurrence_at_distance(ids, offsets, len(index), 0)
    with pytest.raises(ValueError, match="at least one distance"):
        cooccurrence_of_distances([])


def test_document_cooccurrence_is_the_binary_doc_term_product():
    docs = [tokenize(d) for d in TOY]
    index = pd.Index(build_vocabulary(docs).index)
    M = np.array([[1.0 if w in set(d) else 0.0 for w in index] for d in docs])
    direct = M.T @ M
    np.fill_diagonal(direct, 0)
    np.testing.assert_allclose(cooccurrence(docs, index, context="document").toarray(), direct)


@pytest.mark.parametrize("alpha", [1.0, 0.75])
@pytest.mark.parametrize("shift", [1.0, 5.0])
@pytest.mark.parametrize("positive", [True, False])
def test_pmi_matches_a_dense_direct_computation(alpha, shift, positive):
    docs = [tokenize(d) for d in TOY * 3]
    index = pd.Index(build_vocabulary(docs).index)
    C = cooccurrence(docs, index, window=2).toarray()
    N = C.sum()
    pw = C.sum(1) / N
    ctx = C.sum(0) ** alpha
    pc = ctx / ctx.sum()
    with np.errstate(divide="ignore"):
        direct = np.log(C / N) - np.log(pw)[:, None] - np.log(pc)[None, :] - np.log(shift)
    direct[C == 0] = 0.0
    if positive:
        direct = np.maximum(direct, 0)
    got = pmi_matrix(C, alpha=alpha, shift=shift, positive=positive).toarray()
    np.testing.assert_allclose(got, direct, atol=1e-12)


def test_svd_and_eigenvalue_weighting():
    wv0 = PMIWordVectors(n_components=4, eig_weight=0.0, random_state=0).fit(TOY * 5)
    wv1 = PMIWordVectors(n_components=4, eig_weight=1.0, random_state=0).fit(TOY * 5)
    P = wv0.pmi_.toarray()
    s = np.linalg.svd(P, compute_uv=False)
    np.testing.assert_allclose(wv0.singular_values_, s[:4], rtol=1e-5)
    # eig_weight=0: orthonormal columns; 1: the columns scaled by the singular values
    np.testing.assert_allclose(wv0.vectors_.T @ wv0.vectors_, np.eye(4), atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(wv1.vectors_, axis=0), wv1.singular_values_, rtol=1e-5)
    assert wv0.energy()[-1] <= 1.0 and np.all(np.diff(wv0.energy()) > 0)


def _low_rank_plus_noise(n=300, rank=40, seed=0):
    """A sparse non-negative matrix with a decaying spectrum, as a PMI matrix has."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    A = rng.random((n, rank)) @ np.diag(0.85 ** np.arange(rank)) @ rng.random((rank, n))
    A[rng.random((n, n)) > 0.15] = 0.0
    return sp.csr_array(A)


def test_truncated_svd_is_scikit_learns_randomized_svd_from_the_same_start():
    from sklearn.utils.extmath import randomized_svd

    from embedcore.words.pmi import truncated_svd

    P = _low_rank_plus_noise()
    for k in (5, 30):
        U, s = truncated_svd(P, k, random_state=3)
        Us, ss, _ = randomized_svd(P.astype(np.float32), k, n_oversamples=20, n_iter=5,
                                   random_state=np.random.RandomState(3))
        assert U.shape == (300, k) and U.dtype == s.dtype == np.float64
        np.testing.assert_allclose(s, ss, rtol=1e-5)
        np.testing.assert_allclose(U, Us, atol=1e-4)  # the same signs too: each column's largest entry positive
        assert np.all(U[np.argmax(np.abs(U), axis=0), np.arange(k)] > 0)


def test_truncated_svd_finds_the_exact_leading_singular_values_and_vectors():
    from embedcore.words.pmi import truncated_svd

    import scipy.sparse as sp

    rng = np.random.default_rng(1)  # singular values 10 * 0.9^i, singular vectors at random
    left, right = (np.linalg.qr(rng.standard_normal((300, 300)))[0] for _ in range(2))
    P = sp.csr_array(left @ np.diag(10 * 0.9 ** np.arange(300)) @ right.T)
    exact_U, exact_s, _ = np.linalg.svd(P.toarray())
    k = 20
    U, s = truncated_svd(P, k, random_state=0)
    np.testing.assert_allclose(s, exact_s[:k], rtol=1e-4)
    np.testing.assert_allclose(U.T @ U, np.eye(k), atol=1e-5)
    # the subspace of the leading 10: every principal angle to the exact one is small
    cosines = np.linalg.svd(exact_U[:, :10].T @ U[:, :10], compute_uv=False)
    assert cosines.min() > 0.999


def _planted_corpus(seed=0, n=3000):
    """Gendered role words that co-occur with gender contexts and with role contexts."""
    rng = np.random.default_rng(seed)
    roles = ["king", "actor", "waiter", "hero", "monk", "duke"]
    words = {(g, r): f"{r}_{g}" for g in "mf" for r in roles}
    gender_ctx = {g: [f"g{g}{i}" for i in range(5)] for g in "mf"}
    role_ctx = {r: [f"r{r}{i}" for i in range(5)] for r in roles}
    docs = []
    for _ in range(n):
        g, r = rng.choice(list("mf")), rng.choice(roles)
        toks = [words[(g, r)], *rng.choice(gender_ctx[g], 2), *rng.choice(role_ctx[r], 2)]
        rng.shuffle(toks)
        docs.append(toks)
    return docs


def test_most_similar_and_analogy_on_a_planted_corpus():
    wv = PMIWordVectors(window=4, n_components=10, random_state=0).fit(_planted_corpus())
    near = wv.most_similar("king_m", 12)
    # its own role's contexts come first, then the same role in the other gender, then its gender's other roles
    assert set(near["word"][:4]) <= {f"rking{i}" for i in range(5)}
    roles = [w for w in near["word"] if "_" in w]
    assert roles[0] == "king_f" and all(w.endswith("_m") for w in roles[1:4])
    assert wv.analogy("king_m", "king_f", "actor_m")["word"].iloc[0] == "actor_f"
    assert wv.analogy("hero_f", "hero_m", "monk_f")["word"].iloc[0] == "monk_m"


def test_document_vectors_and_tfidf():
    wv = PMIWordVectors(n_components=3, random_state=0).fit(TOY * 5)
    D = wv.transform(["the cat", "unknownword only"], weighting="tfidf")
    assert D.shape == (2, 3) and np.isclose(np.linalg.norm(D[0]), 1) and np.allclose(D[1], 0)


def test_evaluate_word_pairs_spearman_and_oov():
    vecs = {"a": np.array([1.0, 0.0]), "b": np.array([1.0, 0.1]), "c": np.array([0.0, 1.0]), "d": np.array([1.0, 1.0])}
    pairs = pd.DataFrame({"word1": ["a", "a", "a", "x"], "word2": ["b", "d", "c", "a"], "score": [9.0, 5.0, 1.0, 3.0]})
    out = evaluate_word_pairs(vecs, pairs)
    assert out.spearman == pytest.approx(1.0) and out.oov_rate == 0.25 and out.pairs_used == 3


def test_label_embedding_decode_recovers_label_sets():
    from sklearn.datasets import make_multilabel_classification

    _, Y = make_multilabel_classification(n_samples=2000, n_classes=12, n_labels=2, random_state=0)
    le = LabelEmbedding(n_components=12).fit(Y)
    Z = le.encode(Y)
    decoded = le.decode(Z, Y.sum(axis=1))
    exact = np.mean((decoded == Y).all(axis=1))
    assert exact > 0.95, exact
    S = le.similarity()
    assert S.shape == (12, 12) and np.allclose(np.diag(S), 1)
    small = LabelEmbedding(n_components=4).fit(Y)
    assert np.mean((small.decode(small.encode(Y), Y.sum(axis=1)) == Y).all(axis=1)) < exact


@pytest.mark.parametrize(
    "docs, params, message",
    [
        ([], {}, "The corpus is empty"),
        (["", "  "], {}, "The corpus is empty"),
        ("just one string", {}, "not a single string"),
        (["a b a"], {"n_components": 5}, "n_components=5 needs more words: the vocabulary has 2"),
        (["a b c"], {"min_count": 2}, "Only 0 word\\(s\\) occur at least min_count=2"),
        (TOY, {"alpha": 0, "n_components": 2}, "The 'alpha' parameter of PMIWordVectors must be a float in the range"),
        (TOY, {"shift": 0, "n_components": 2}, "The 'shift' parameter of PMIWordVectors must be"),
        (TOY, {"context": "sentence", "n_components": 2}, "The 'context' parameter of PMIWordVectors must be a str"),
        (TOY, {"window": 0, "n_components": 2}, "The 'window' parameter of PMIWordVectors must be an int"),
        (TOY, {"n_components": 0}, "The 'n_components' parameter of PMIWordVectors must be an int"),
        (TOY, {"shift": 1e9, "n_components": 2}, "Every PMI value is clipped to zero"),
    ],
)
def test_validation_messages(docs, params, message):
    with pytest.raises(ValueError, match=message):
        PMIWordVectors(**params).fit(docs)


def test_unknown_word_message_suggests_spellings():
    wv = PMIWordVectors(n_components=3, random_state=0).fit(TOY * 5)
    with pytest.raises(ValueError, match="'cats' is not in the vocabulary .* Similar spellings in the vocabulary: cat"):
        wv.most_similar("cats")


# --------------------------------------------------------------------------- tokens in any script

ZH = [
    "今天天气很好，我们一起去公园散步吧。",
    "北京是中华人民共和国的首都，也是全国的政治和文化中心。",
    "他每天早上六点起床，然后去学校上课。",
    "这家餐厅的菜非常好吃，价格也不贵。",
    "我喜欢在周末读书和听音乐。",
]
ZH_SEGMENTED = [
    "今天 天气 很 好 ， 我们 一起 去 公园 散步 吧 。",
    "北京 是 中华人民共和国 的 首都 ， 也 是 全国 的 政治 和 文化 中心 。",
    "他 每天 早上 六点 起床 ， 然后 去 学校 上课 。",
    "这家 餐厅 的 菜 非常 好吃 ， 价格 也 不 贵 。",
    "我 喜欢 在 周末 读书 和 听 音乐 。",
]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Café naïve Zürich", ["café", "naïve", "zürich"]),
        ("cafe\u0301 CAFÉ", ["café", "café"]),  # a decomposed accent is the same word
        ("Ελληνικά και Русский язык", ["ελληνικά", "και", "русский", "язык"]),
        ("Boston's Red Sox won 3-2!", ["boston's", "red", "sox", "won", "3", "2"]),
        ("l’homme don't", ["l'homme", "don't"]),
        ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),  # vowel signs are part of the word
        ("ภาษา ไทย", ["ภาษา", "ไทย"]),
        ("我 喜欢 吃 苹果 。", ["我", "喜欢", "吃", "苹果"]),
        ("snake_case e-mail", ["snake", "case", "e", "mail"]),
    ],
)
def test_tokenize_keeps_the_letters_of_any_script(text, expected):
    assert tokenize(text) == expected


def test_pre_segmented_chinese_gives_chinese_words():
    wv = PMIWordVectors(n_components=3, random_state=0).fit(ZH_SEGMENTED * 3)
    assert {"喜欢", "中华人民共和国", "音乐"} <= set(wv.vocabulary_)


@pytest.mark.parametrize(
    "docs",
    [
        ZH,
        ["私は毎日日本語を勉強しています。", "東京は日本の首都で、とても大きな都市です。"],
        ["ภาษาไทยเป็นภาษาที่สวยงามและมีประวัติศาสตร์ยาวนาน", "ฉันชอบกินข้าวผัดกับไข่ดาวทุกวัน"],
    ],
    ids=["chinese", "japanese", "thai"],
)
def test_text_without_spaces_between_words_is_refused_with_what_to_do(docs):
    from embedcore.io import DataError

    with pytest.raises(DataError, match="without spaces between words.*Segment it first.*jieba"):
        PMIWordVectors(n_components=2).fit(docs * 3)


def test_a_few_words_of_chinese_in_english_text_are_fine():
    docs = ["the 北京大学 team won the match", "the team lost the match in 上海市"] * 5
    assert "北京大学" in PMIWordVectors(n_components=2, random_state=0).fit(docs).vocabulary_


def test_segmented_thai_is_accepted():
    docs = ["ภาษา ไทย เป็น ภาษา ที่ สวยงาม และ มี ประวัติศาสตร์ ยาวนาน", "ฉัน ชอบ กิน ข้าวผัด กับ ไข่ดาว ทุก วัน"]
    assert "ภาษา" in PMIWordVectors(n_components=2, random_state=0).fit(docs * 3).vocabulary_


def test_tokenize_joins_marks_beyond_the_basic_plane():
    chakma = "\U00011103\U00011127\U0001110C\U00011134"  # a Chakma word: letters with vowel signs
    assert tokenize(f"{chakma} 🙂 ok") == [chakma, "ok"]


def test_label_decoding_without_the_label_count_uses_a_threshold_chosen_on_training():
    from sklearn.datasets import make_multilabel_classification

    from embedcore.words import LabelEmbedding

    _, Y = make_multilabel_classification(n_samples=1000, n_classes=12, n_labels=3, random_state=0)
    le = LabelEmbedding(n_components=6).fit(Y[:700])
    rec = le.recovery(Y[700:])
    assert 0.0 < rec.threshold <= rec.known_count <= 1.0
    decoded = le.decode(le.encode(Y[700:]))  # no label count given
    assert decoded.sum(axis=1).min() >= 1 and decoded.shape == Y[700:].shape
    # the number of labels decoded varies with the row, as the true sets do
    assert len(np.unique(decoded.sum(axis=1))) > 1


def test_word2vec_gives_the_same_vectors_for_the_same_seed():
    from embedcore import datasets
    from embedcore.words import train_word2vec

    docs = datasets.load_corpus("lee").documents[:100]
    a = train_word2vec(docs, sg=True, epochs=2, random_state=3)
    b = train_word2vec(docs, sg=True, epochs=2, random_state=3)
    assert np.array_equal(a.vectors, b.vectors)


def test_word2vec_training_can_be_stopped_after_any_epoch():
    from embedcore import datasets
    from embedcore.words import train_word2vec

    seen = []

    def stop_after_two():
        seen.append(1)
        if len(seen) == 2:
            raise KeyboardInterrupt

    docs = datasets.load_corpus("lee").documents[:50]
    try:
        train_word2vec(docs, epochs=20, should_stop=stop_after_two)
    except KeyboardInterrupt:
        pass
    assert len(seen) == 2  # the remaining 18 epochs never ran


def test_rank_for_energy_is_the_first_k_reaching_the_share():
    wv = PMIWordVectors(window=4, n_components=10, random_state=0).fit(_planted_corpus())
    energy = wv.energy()
    for share in (0.1, 0.3, energy[-1]):
        k = wv.rank_for_energy(share)
        assert energy[k - 1] >= share and (k == 1 or energy[k - 2] < share)
    assert wv.rank_for_energy(min(1.0, energy[-1] + 1e-6)) is None


def test_neighbour_words_match_a_brute_force_ranking():
    wv = PMIWordVectors(window=4, n_components=10, random_state=0).fit(_planted_corpus())
    got = wv.neighbour_words(12, k=5)
    S = wv.normed_ @ wv.normed_.T
    for i in range(12):
        order = [j for j in np.argsort(-S[i], kind="stable") if j != i][:5]
        assert got[i].split(", ") == [wv.words_[j] for j in order]


def test_word_clusters_and_document_coordinates():
    wv = PMIWordVectors(window=4, n_components=10, random_state=0).fit(_planted_corpus())
    labels = word_clusters(wv, 40, 4, random_state=0)
    assert labels.shape == (40,) and set(labels) == {0, 1, 2, 3}
    assert np.array_equal(labels, word_clusters(wv, 40, 4, random_state=0))
    docs = _planted_corpus()[:30]
    P = document_coordinates(wv, docs, random_state=0)
    D = wv.transform(docs, weighting="tfidf")
    # PCA keeps the two directions of largest variance: no other plane keeps more
    assert P.shape == (30, 2)
    assert np.isclose(P.var(axis=0).sum(), np.sort(np.linalg.eigvalsh(np.cov(D.T, bias=True)))[-2:].sum(), rtol=1e-6)
    assert np.allclose(document_coordinates(wv, docs[:2]), 0)


def test_document_feature_comparison_scores_every_representation_in_the_same_folds():
    rng = np.random.default_rng(0)
    space, faith = ["space", "rocket", "orbit", "launch", "moon"], ["god", "belief", "faith", "church", "prayer"]
    texts = [" ".join(rng.choice(space, 6)) + f" w{i}" for i in range(20)] + \
            [" ".join(rng.choice(faith, 6)) + f" w{i}" for i in range(20)]
    labels = ["space"] * 20 + ["atheism"] * 20
    result = compare_document_features(texts, labels, n_components=3, window=2, random_state=0)
    assert len(result.sides) == 5 and (result.sides["held-out"] > 0.9).all()
    assert (result.sides["high"] <= 1.0).all()  # accuracy intervals stay within what accuracy can be
    assert set(result.folds.groupby("side").size()) == {5}
    assert result.dims["PMI document vectors (tf-idf weighted, unit rows)"] == 3
    assert len(result.differences) == 4


def test_word_vector_comparison_chooses_on_one_half_and_scores_on_the_other():
    from scipy.stats import spearmanr

    from embedcore.evaluation import setting_text

    docs = _planted_corpus(n=600)
    roles = ["king", "actor", "waiter", "hero", "monk", "duke"]
    words = [f"{r}_{g}" for r in roles for g in "mf"]
    rows = [(a, b, 2.0 * (a[:-2] == b[:-2]) + (a[-1] == b[-1])) for i, a in enumerate(words) for b in words[i + 1:]]
    pairs = pd.DataFrame(rows, columns=["word1", "word2", "score"])
    pmi_grid = [dict(window=2, eig_weight=0.5, shift=1.0), dict(window=4, eig_weight=0.0, shift=1.0)]
    w2v_grid = [dict(epochs=2, window=2)]
    result = compare_word_vectors(docs, pairs, n_components=10, min_count=1, random_state=0, n_repeats=2,
                                  pmi_grid=pmi_grid, word2vec_grid=w2v_grid)
    assert list(result.sides["side"]) == ["PMI-SVD", "CBOW", "skip-gram"] and len(result.pairs) == len(pairs)
    assert result.side("PMI-SVD")["held-out"] > 0.5  # the planted roles are found
    cos = word_vector_similarities(docs, pairs, n_components=10, min_count=1, random_state=0, pmi_grid=pmi_grid,
                                   word2vec_grid=w2v_grid)
    human = pairs["score"].to_numpy()
    pmi = result.folds[result.folds["side"] == "PMI-SVD"]
    for (train, test), (_, row) in zip(result.splits, pmi.iterrows()):
        on_train = {setting_text(g): spearmanr(cos[("PMI-SVD", setting_text(g))][train], human[train]).statistic
                    for g in pmi_grid}
        assert row["setting"] == max(on_train, key=on_train.get)  # chosen on the choosing half alone
        assert row["held-out score"] == pytest.approx(
            spearmanr(cos[("PMI-SVD", row["setting"])][test], human[test]).statistic)


def test_a_documents_tfidf_vector_does_not_depend_on_its_batch():
    wv = PMIWordVectors(window=4, n_components=10, random_state=0).fit(_planted_corpus())
    docs = _planted_corpus()[:6]
    alone = wv.transform(docs[:1], weighting="tfidf")
    together = wv.transform(docs, weighting="tfidf")
    np.testing.assert_allclose(alone[0], together[0], atol=1e-12)
    # the idf is the training corpus's smooth idf, as scikit-learn computes it
    from sklearn.feature_extraction.text import TfidfVectorizer

    tf = TfidfVectorizer(vocabulary=list(wv.words_), token_pattern=r"\S+", lowercase=False)
    tf.fit([" ".join(d) for d in _planted_corpus()])
    np.testing.assert_allclose(wv.idf_, tf.idf_)


@pytest.mark.parametrize(
    "Y, params, message",
    [
        (np.zeros((0, 4)), {}, r"0 sample\(s\)"),
        (np.zeros((3, 0)), {}, r"0 feature\(s\)"),
        (np.ones((3, 1)), {}, r"1 feature\(s\) \(shape=\(3, 1\)\) while a minimum of 2 is required"),
        (np.array([[1, np.nan, 0], [0, 1, 1]]), {}, "NaN"),
        (np.array([[1, -1, 0], [0, 1, 1]]), {}, "Negative values in data passed to LabelEmbedding.fit"),
        (np.array([[1 + 1j, 0], [0, 1]]), {}, "Complex data not supported"),
        (np.eye(3), {"n_components": 4}, "n_components=4 is more than the number of labels \\(3\\)"),
        (np.eye(3), {"n_components": 0}, "The 'n_components' parameter of LabelEmbedding must be an int"),
    ],
)
def test_label_embedding_refuses_what_it_cannot_embed(Y, params, message):
    with pytest.raises(ValueError, match=message):
        LabelEmbedding(**{"n_components": 2, **params}).fit(Y)


def test_label_embedding_reads_a_stored_zero_as_an_absent_label():
    import scipy.sparse as sp

    Y = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=float)
    stored = sp.csr_array(Y)
    stored.data[0] = 0.0  # sample 0's first label: stored, but zero
    le = LabelEmbedding(n_components=2).fit(stored)
    Y[0, 0] = 0.0
    np.testing.assert_allclose(le.pmi_, LabelEmbedding(n_components=2).fit(Y).pmi_)
    with pytest.raises(ValueError, match="X has 2 features, but LabelEmbedding is expecting 3"):
        le.encode(np.ones((1, 2)))


def test_vectors_from_counts_equal_the_fit_on_the_corpus():
    docs = _planted_corpus(n=600)
    params = dict(window=3, min_count=2, n_components=8, shift=2.0, random_state=0)
    wv = PMIWordVectors(**params).fit(docs)
    counts = build_vocabulary(docs, min_count=2)
    index = pd.Index(counts.index)
    C = cooccurrence(docs, index, window=3)
    M = term_counts(docs, index)
    df, n = (M > 0).sum(axis=0), len(docs)
    got = PMIWordVectors.from_counts(counts, C, document_frequency=df, n_documents=n, **params)
    for name in ("vectors_", "singular_values_", "idf_"):
        assert np.array_equal(getattr(got, name), getattr(wv, name)), name
    assert (got.pmi_ != wv.pmi_).nnz == 0 and list(got.words_) == list(wv.words_)
    assert got.get_params() == wv.get_params()
    assert np.array_equal(got.transform(docs[:5], weighting="tfidf"), wv.transform(docs[:5], weighting="tfidf"))
    # without document frequencies there is no idf, and tf-idf says so
    bare = PMIWordVectors.from_counts(counts, C, **params)
    assert np.array_equal(bare.vectors_, wv.vectors_)
    with pytest.raises(ValueError, match="no idf, so weighting='tfidf' is not available"):
        bare.transform(["a b"], weighting="tfidf")


def test_vectors_from_a_pmi_computed_once_equal_the_fit_at_every_dimension():
    docs = _planted_corpus(n=400)
    params = dict(window=2, min_count=2, shift=2.0, alpha=0.75, random_state=0)
    counts = build_vocabulary(docs, min_count=2)
    C = cooccurrence(docs, pd.Index(counts.index), window=2)
    P = pmi_matrix(C, alpha=0.75, shift=2.0)
    for k in (4, 7):
        wv = PMIWordVectors(n_components=k, **params).fit(docs)
        got = PMIWordVectors.from_counts(counts, C, pmi=P, n_components=k, **params)
        assert got.pmi_ is P  # shared, not computed again
        for name in ("vectors_", "singular_values_"):
            assert np.array_equal(getattr(got, name), getattr(wv, name)), (k, name)
    with pytest.raises(ValueError, match="The PMI matrix is 2 x 2, but the vocabulary has"):
        PMIWordVectors.from_counts(counts, C, pmi=np.eye(2), n_components=4, **params)


def test_reweighted_is_the_fit_with_that_eigenvalue_weight_without_a_new_svd():
    docs = _planted_corpus(n=300)
    params = dict(window=2, min_count=2, n_components=6, random_state=0)
    wv = PMIWordVectors(eig_weight=0.0, **params).fit(docs)
    for p in (0.0, 0.25, 0.5, 1.0, 2.0):
        fitted = PMIWordVectors(eig_weight=p, **params).fit(docs)
        got = wv.reweighted(p)
        assert got.eig_weight == p and got.get_params() == fitted.get_params()
        for name in ("vectors_", "normed_", "singular_values_"):
            assert np.array_equal(getattr(got, name), getattr(fitted, name)), (p, name)
        assert got.most_similar(fitted.words_[0], 5).equals(fitted.most_similar(fitted.words_[0], 5))
    assert wv.eig_weight == 0.0 and np.array_equal(wv.vectors_, wv.left_singular_vectors_)  # the original is kept
    assert wv.reweighted(1.0).pmi_ is wv.pmi_  # shared, not recomputed
    with pytest.raises(ValueError, match="The 'eig_weight' parameter of PMIWordVectors"):
        wv.reweighted(-1.0)
    with pytest.raises(NotFittedError):
        PMIWordVectors().reweighted(1.0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(cooccurrence=np.zeros((2, 2))), "The co-occurrence matrix is 2 x 2, but the vocabulary has 3 words"),
        (dict(document_frequency=[1, 1, 1]), "Give both document_frequency and n_documents"),
        (dict(document_frequency=[1, 1], n_documents=2), "document_frequency has 2 entries"),
        (dict(n_components=3), "n_components=3 needs more words"),
        (dict(alpha=-1), "The 'alpha' parameter of PMIWordVectors"),
    ],
)
def test_vectors_from_counts_validation(kwargs, message):
    counts = pd.Series([3, 2, 2], index=["a", "b", "c"])
    args = {"cooccurrence": np.ones((3, 3)) - np.eye(3), "n_components": 1, **kwargs}
    with pytest.raises(ValueError, match=message):
        PMIWordVectors.from_counts(counts, args.pop("cooccurrence"), **args)


def test_smooth_idf_is_scikit_learns():
    from sklearn.feature_extraction.text import TfidfTransformer

    M = np.array([[1, 0, 3], [0, 0, 1], [2, 1, 0], [0, 0, 1]])
    np.testing.assert_allclose(smooth_idf((M > 0).sum(axis=0), len(M)), TfidfTransformer().fit(M).idf_, rtol=1e-15)


@pytest.mark.parametrize("check", [
    "check_estimator_cloneable", "check_estimator_repr", "check_no_attributes_set_in_init",
    "check_get_params_invariance", "check_set_params", "check_parameters_default_constructible",
    "check_do_not_raise_errors_in_init_or_set_params", "check_valid_tag_types", "check_mixin_order",
    "check_param_validation",
])
@pytest.mark.parametrize("estimator", [PMIWordVectors(n_components=2), LabelEmbedding(n_components=2)],
                         ids=lambda e: type(e).__name__)
def test_scikit_learn_checks_that_need_no_numeric_table(estimator, check):
    """scikit-learn skips its generic checks for string input (as for its own text vectorizers); these need no data."""
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)(type(estimator).__name__, estimator)
