"""PMI word vectors of a corpus larger than memory: counts per partition, summed, then PPMI and SVD.

The corpus is plain UTF-8 text, one document per line, in one or many files
that Dask cuts into blocks of whole lines. Two passes over the blocks:

1. tokenise each block (the lab's tokeniser: :func:`embedcore.words.tokenize`)
   and count its words; the counts are summed by a tree, and the vocabulary
   is pruned exactly as :func:`embedcore.words.build_vocabulary` prunes it
   (:func:`embedcore.words.prune_vocabulary` on the summed counts);
2. with that vocabulary sent to every worker once, count each block's
   co-occurrences (a sparse matrix) and document frequencies, summed by a tree.

The driver then turns the summed counts into PPMI and its truncated SVD by
:meth:`PMIWordVectors.from_counts <embedcore.words.PMIWordVectors.from_counts>`,
so the result is the fitted estimator the whole corpus in memory would give.
Blank lines are skipped, as the lab's text reader skips them. A third,
optional pass (:func:`document_vectors`) writes every line's document vector.
"""

from __future__ import annotations

import copy
import json
import os
import unicodedata
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._sparse import offsets_of, ragged_to_csr
from ..tokens import ASTRAL, UNSPACED_RUN, check_word_spacing, token_patterns
from ..words import check_vocabulary, prune_vocabulary
from ._cluster import (
    BatchError,
    bounded_sum,
    broadcast,
    check_setting,
    current_client,
    let_go,
    refusals,
    run_tasks,
    tree_sum,
)
from ._inputs import Part, fingerprint, text_files, text_parts
from ._outputs import ShardedOutput, check_entry, manifest_file, refuse_unlisted, sha256_of

__all__ = ["CorpusCounts", "count_corpus", "vectors_from_counts", "word_vectors", "write_word2vec", "tokens_of_lines",
           "document_vectors", "read_document_vectors", "publish_word2vec", "read_word_vectors"]

_COUNT_PARAMS = ("window", "context", "weighted", "min_count", "max_vocab")
_END = "Q"  # marks a line's end: after lower-casing no token can be an upper-case letter


@dataclass
class Tokens:
    """One block's tokens, factorised: ``words[codes[t]]`` is token ``t``, on line ``lines[t]`` of the block."""

    words: np.ndarray
    codes: np.ndarray
    lines: np.ndarray
    n_lines: int
    n_docs: int
    documents: np.ndarray | None = None  # each line's document row in the block, -1 for a blank line

    def ids(self, index: pd.Index) -> np.ndarray:
        """Every token's position in the vocabulary ``index`` (-1 for a word outside it)."""
        return index.get_indexer(self.words)[self.codes] if self.codes.size else np.empty(0, dtype=np.int64)

    def term_counts(self, ids: np.ndarray, rows: np.ndarray, n_rows: int, n_words: int) -> sp.csr_array:
        """The (n_rows x n_words) counts of the tokens' ``ids`` (-1 left out), token ``t`` in row ``rows[t]``.

        Tokens are in reading order, so their lines (and documents) never
        decrease and the rows' lengths are their counts.
        """
        return ragged_to_csr(offsets_of(np.bincount(rows, minlength=n_rows)), ids, n_words)


def tokens_of_lines(lines: list[str], source: str = "The corpus") -> Tokens:
    """Tokenise a block of lines in one pass, exactly as :func:`embedcore.words.tokenize` does line by line.

    The block is normalised and lower-cased as a whole and every line end
    becomes a marker token (an upper-case letter, which lower-cased text
    cannot hold), so one regular-expression scan finds every token and the
    markers say which line each came from.

    Examples
    --------
    >>> t = tokens_of_lines(["The cat\\n", "\\n", "sat. The end\\n"])
    >>> t.words[t.codes].tolist(), t.lines.tolist(), t.n_docs
    (['the', 'cat', 'sat', 'the', 'end'], [0, 0, 2, 2, 2], 2)
    """
    from ..io import DataError

    text = "".join(lines)
    if not text.endswith("\n"):
        text += "\n"
    nonblank = np.fromiter(map(bool, map(str.strip, lines)), dtype=bool, count=len(lines))
    n_docs = int(nonblank.sum())
    if UNSPACED_RUN.search(text):
        try:
            check_word_spacing(lines, source)
        except DataError as e:
            raise BatchError(str(e)) from None
    bmp, full = token_patterns()
    pattern = bmp
    if text.isascii():
        text = text.lower().replace("_", " ")
    else:
        text = unicodedata.normalize("NFC", text).replace("\u2019", "'").lower().replace("_", " ")
        pattern = full if ASTRAL.search(text) else bmp
    found = np.array(pattern.findall(text.replace("\n", f" {_END} ")), dtype=object)
    end = found == _END
    line = np.cumsum(end) - end
    codes, words = pd.factorize(found[~end])
    documents = np.where(nonblank, np.cumsum(nonblank) - 1, -1).astype(np.int64)
    return Tokens(np.asarray(words, dtype=object), codes.astype(np.int32), line[~end].astype(np.int32),
                  len(lines), n_docs, documents)


@refusals
def _tokenise_task(part, number: int) -> Tokens:
    lines = part.lines() if isinstance(part, Part) else part
    where = f"{part.path} (the block at byte {part.start})" if isinstance(part, Part) else \
        f"Partition {number} of the corpus"
    return tokens_of_lines(lines, where)


@refusals
def _word_counts(block: Tokens) -> tuple[pd.Series, int]:
    counts = pd.Series(np.bincount(block.codes, minlength=len(block.words)), index=block.words)
    return counts, int(block.codes.size)


def _merge_word_counts(*parts) -> tuple[pd.Series, int]:
    merged = pd.concat([p[0] for p in parts]).groupby(level=0, sort=False).sum()
    return merged, sum(p[1] for p in parts)


@dataclass
class CorpusCounts:
    """What a pass over the corpus counts; partial counts of blocks add up.

    Attributes
    ----------
    cooccurrence : sparse (V, V) array, as :func:`embedcore.words.cooccurrence` gives on the whole corpus
    document_frequency : (V,) array, documents holding each word
    n_documents : int, non-blank lines
    counts : pandas Series, the vocabulary's word counts (most frequent first)
    n_tokens : int, tokens in the corpus (in or out of the vocabulary)
    n_partitions : int

    Examples
    --------
    Two blocks' counts over the same two-word vocabulary add up (:func:`count_corpus` sums them on the workers):

    >>> first = CorpusCounts(sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]])), np.array([1, 1]), n_documents=1)
    >>> second = CorpusCounts(sp.csr_array(np.array([[0.0, 2.0], [2.0, 0.0]])), np.array([1, 0]), n_documents=2)
    >>> both = first + second
    >>> both.cooccurrence.toarray().tolist(), both.document_frequency.tolist(), both.n_documents
    ([[0.0, 3.0], [3.0, 0.0]], [2, 1], 3)
    """

    cooccurrence: sp.csr_array
    document_frequency: np.ndarray
    n_documents: int
    counts: pd.Series | None = None
    n_tokens: int = 0
    n_partitions: int = 0

    def __add__(self, other: CorpusCounts) -> CorpusCounts:
        return CorpusCounts(sp.csr_array(self.cooccurrence + other.cooccurrence),
                            self.document_frequency + other.document_frequency, self.n_documents + other.n_documents)


def _window_pairs(ids: np.ndarray, doc: np.ndarray, V: int, window: int, weighted: bool) -> sp.csr_array:
    """Pairs at most ``window`` apart in the same line, as :func:`embedcore.words.cooccurrence` counts them.

    Each pair is counted once in reading order, as the key ``first * V + second``;
    sorting the keys counts them (and lays them out row by row), and adding
    the transpose counts the other direction.
    """
    keys, weights = [], []
    for d in range(1, window + 1):  # a loop over offsets only
        a, b = ids[:-d], ids[d:]
        ok = (doc[:-d] == doc[d:]) & (a >= 0) & (b >= 0)
        keys.append(a[ok] * V + b[ok])
        weights.append(np.full(int(ok.sum()), 1.0 / d))
    keys = np.concatenate(keys)
    if weighted:
        keys, inverse = np.unique(keys, return_inverse=True)
        values = np.bincount(inverse, weights=np.concatenate(weights), minlength=keys.size)
    else:
        keys, counts = np.unique(keys, return_counts=True)
        values = counts.astype(np.float64)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(keys // V, minlength=V))])
    U = sp.csr_array((values, keys % V, indptr), shape=(V, V))
    return sp.csr_array(U + U.T)


#: Most co-occurrence non-zeros gathered on the driver by default (about 12 bytes each there, 2.4 GB).
MAX_NNZ = 200_000_000


def _too_many(nnz: int, limit: int) -> str:
    return (f"The co-occurrence matrix has more than {limit:,} non-zeros ({nnz:,} so far), more than this machine "
            f"is allowed to gather (about {12 * limit / 1e9:.1f} GB); raise --min-count or set --max-vocab (or "
            "raise --max-nnz / max_nnz if this machine has the memory).")


def _nonzeros(counts: CorpusCounts) -> int:
    return counts.cooccurrence.nnz


@refusals
def _count_block(block: Tokens, index: pd.Index, window: int, context: str, weighted: bool,
                 limit: int | None = None) -> CorpusCounts:
    V = len(index)
    ids = block.ids(index)
    doc = block.lines.astype(np.int64)
    M = block.term_counts(ids, doc, block.n_lines, V)
    M.data[:] = 1.0
    if context == "document":
        C = sp.csr_array(M.T @ M)
        C.setdiag(0)
        C.eliminate_zeros()
    else:
        C = _window_pairs(ids, doc, V, window, weighted)
    if limit is not None and C.nnz > limit:
        raise BatchError(_too_many(C.nnz, limit))
    return CorpusCounts(C, np.bincount(M.indices, minlength=V).astype(np.int64), block.n_docs)


def check_params(params: dict):
    """The estimator for ``params``, every setting checked against what ``PMIWordVectors.fit`` accepts."""
    from ..words import PMIWordVectors

    try:
        wv = PMIWordVectors(**params)
    except TypeError as e:
        raise BatchError(f"Unknown word-vector setting: {e}.") from None
    check_setting("window", wv.window, integer=True, low=1)
    check_setting("context", wv.context, choices=("window", "document"))
    check_setting("weighted", wv.weighted, flag=True)
    check_setting("min_count", wv.min_count, integer=True, low=1)
    check_setting("max_vocab", wv.max_vocab, integer=True, low=1, none=True)
    check_setting("alpha", wv.alpha, low=0, open_low=True)
    check_setting("shift", wv.shift, low=0, open_low=True)
    check_setting("positive", wv.positive, flag=True)
    check_setting("n_components", wv.n_components, integer=True, low=1)
    check_setting("eig_weight", wv.eig_weight, low=0)
    check_setting("random_state", wv.random_state, integer=True, low=0, none=True)
    return wv


def _blocks(client, corpus, blocksize, keep_tokens: bool, retries: int) -> list:
    from dask import delayed

    parts = text_parts(text_files(corpus), blocksize)
    task = delayed(_tokenise_task, pure=False)
    blocks = [task(p, i) for i, p in enumerate(parts)]
    return client.persist(blocks, retries=retries) if keep_tokens else blocks


def count_corpus(corpus, *, window: int = 2, context: str = "window", weighted: bool = False, min_count: int = 1,
                 max_vocab: int | None = None, client=None, retries: int = 2, progress: bool = True,
                 blocksize: str | int = "16MB", keep_tokens: bool = True, check=None,
                 max_nnz: int = MAX_NNZ) -> CorpusCounts:
    """Count a corpus's vocabulary, co-occurrences and document frequencies, partition by partition.

    Parameters
    ----------
    corpus : path(s)
        Text files, directories of them or glob patterns; one document per
        line, UTF-8 (``.gz``, ``.bz2``, ``.xz`` read whole, one partition each).
    window, context, weighted, min_count, max_vocab :
        As in :class:`~embedcore.words.PMIWordVectors`.
    client, retries, progress :
        As in :func:`embedcore.batch.sketch`.
    blocksize : str or int, default="16MB"
        Text per partition; a worker holds a partition's tokens as Python strings.
    keep_tokens : bool, default=True
        Keep each partition's tokens (4 bytes per token, spilled to disk by
        Dask when memory runs short) for the second pass; False reads and
        tokenises the corpus twice instead.
    check : callable, optional
        Called with the vocabulary's counts before the second pass, to stop
        early (:func:`word_vectors` checks the dimensions fit).
    max_nnz : int, default=200,000,000
        Most co-occurrence non-zeros summed into this process. The sums run
        on the workers and each is checked there, so a matrix past the
        bound stops the run before it is gathered. The PPMI and SVD that
        follow run on this machine (the one single-node part of the step):
        budget about 12 bytes per non-zero for the counts, as much again
        for the PPMI, plus V x dimensions x 8 bytes for the vectors.

    Returns
    -------
    CorpusCounts

    Examples
    --------
    The summed counts of three partitions are the in-memory counts of the whole corpus:

    >>> import tempfile
    >>> from distributed import Client
    >>> from embedcore.words import PMIWordVectors
    >>> lines = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"]
    >>> corpus = os.path.join(tempfile.mkdtemp(), "corpus.txt")
    >>> with open(corpus, "w") as f:
    ...     _ = f.write("\\n".join(lines) + "\\n")
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     counts = count_corpus(corpus, window=2, blocksize=30, client=client, progress=False)
    >>> in_memory = PMIWordVectors(window=2, n_components=2).fit(lines)
    >>> counts.n_partitions, (counts.cooccurrence != in_memory.cooccurrence_).nnz
    (3, 0)
    """
    from dask import delayed
    from distributed import futures_of

    wv = check_params(dict(window=window, context=context, weighted=weighted, min_count=min_count,
                            max_vocab=max_vocab))
    client = current_client(client)
    blocks = _blocks(client, corpus, blocksize, keep_tokens, retries)
    try:
        merged, n_tokens = tree_sum(client, [delayed(_word_counts, pure=False)(b) for b in blocks],
                                    combine=_merge_word_counts, retries=retries, label="count words",
                                    progress=progress)
        if n_tokens == 0:
            raise BatchError("The corpus is empty: no document has a single word.")
        counts = prune_vocabulary(merged, wv.min_count, wv.max_vocab)
        if check is not None:
            check(counts)
        index = client.scatter(pd.Index(counts.index, dtype=object), broadcast=True, hash=False)
        task = delayed(_count_block, pure=False)
        total = tree_sum(client, [task(b, index, wv.window, wv.context, wv.weighted, max_nnz) for b in blocks],
                         retries=retries, label="count pairs", progress=progress, split_every=2,
                         combine=bounded_sum(max_nnz, _nonzeros, _too_many))
    finally:
        if keep_tokens:
            let_go(client, futures_of(blocks))
    total.cooccurrence.eliminate_zeros()
    total.counts, total.n_tokens, total.n_partitions = counts, n_tokens, len(blocks)
    return total


def check_fitted_vocabulary(wv, counts: pd.Series) -> None:
    """The checks :meth:`PMIWordVectors.fit` makes on the vocabulary, with its messages."""
    try:
        check_vocabulary(counts, wv.min_count, wv.n_components)
    except ValueError as err:
        raise BatchError(str(err)) from None


def vectors_from_counts(counts: CorpusCounts, **params):
    """A fitted :class:`~embedcore.words.PMIWordVectors` from a corpus's counts, as ``fit`` would make it.

    :meth:`PMIWordVectors.from_counts <embedcore.words.PMIWordVectors.from_counts>`
    on the summed counts: the same PPMI, SVD and (from the document
    frequencies) idf as the estimator's ``fit`` on the whole corpus.

    Examples
    --------
    The counts need not come from a cluster: the lab's in-memory counters give the same numbers, and
    the same vectors as ``fit``:

    >>> from embedcore.tokens import tokenize
    >>> from embedcore.words import PMIWordVectors, build_vocabulary, cooccurrence
    >>> lines = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"]
    >>> docs = [tokenize(line) for line in lines]
    >>> vocabulary = build_vocabulary(docs)
    >>> holding = np.array([sum(w in d for d in docs) for w in vocabulary.index])  # documents holding each word
    >>> counts = CorpusCounts(cooccurrence(docs, pd.Index(vocabulary.index)), holding, len(docs), vocabulary)
    >>> wv = vectors_from_counts(counts, n_components=2, random_state=0)
    >>> in_memory = PMIWordVectors(n_components=2, random_state=0).fit(lines)
    >>> wv.vectors_.shape, bool(np.allclose(wv.idf_, in_memory.idf_))
    ((9, 2), True)
    >>> bool(np.allclose(np.abs(wv.vectors_), np.abs(in_memory.vectors_)))  # each dimension up to its sign
    True
    """
    from ..words import PMIWordVectors

    check_params(params)
    try:
        return PMIWordVectors.from_counts(counts.counts, counts.cooccurrence,
                                          document_frequency=counts.document_frequency,
                                          n_documents=counts.n_documents, **params)
    except ValueError as err:
        raise BatchError(str(err)) from None


def word_vectors(corpus, *, client=None, retries: int = 2, progress: bool = True, blocksize: str | int = "16MB",
                 keep_tokens: bool = True, max_nnz: int = MAX_NNZ, **params):
    """PMI word vectors of a corpus on disk: the fitted estimator ``PMIWordVectors(**params).fit`` would give.

    ``params`` are :class:`~embedcore.words.PMIWordVectors`'s (window,
    context, weighted, min_count, max_vocab, alpha, shift, positive,
    n_components, eig_weight, random_state); the rest as in
    :func:`count_corpus`. Window counts are integers and sum exactly, so
    the co-occurrences, PPMI and (with the same ``random_state``) the
    vectors equal the in-memory fit's; weighted (1/d) counts agree to
    rounding.

    Returns
    -------
    PMIWordVectors
        Fitted; write it with :func:`write_word2vec`.

    Examples
    --------
    A corpus may be a directory of text files, read in the order of their names:

    >>> import tempfile
    >>> from distributed import Client
    >>> from embedcore.words import PMIWordVectors
    >>> corpus = tempfile.mkdtemp()
    >>> files = {"a.txt": "the cat sat on the mat\\nthe dog sat on the log\\n", "b.txt": "a cat and a dog\\n"}
    >>> for name, text in files.items():
    ...     with open(os.path.join(corpus, name), "w") as f:
    ...         _ = f.write(text)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     wv = word_vectors(corpus, n_components=2, random_state=0, client=client, progress=False)
    >>> lines = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"]
    >>> in_memory = PMIWordVectors(n_components=2, random_state=0).fit(lines)
    >>> list(wv.words_[:4]), bool(np.allclose(np.abs(wv.vectors_), np.abs(in_memory.vectors_)))
    (['the', 'a', 'cat', 'dog'], True)
    """
    wv = check_params(params)
    counting = {k: params[k] for k in _COUNT_PARAMS if k in params}
    counts = count_corpus(corpus, client=client, retries=retries, progress=progress, blocksize=blocksize,
                          keep_tokens=keep_tokens, check=lambda c: check_fitted_vocabulary(wv, c),
                          max_nnz=max_nnz, **counting)
    return vectors_from_counts(counts, **params)


DOCS_FORMAT = "embedcore-document-vectors/2"


@refusals
def _document_block(part, model, weighting: str, number: int, out_dir: str | None, dtype: str) -> dict:
    """A block's document vectors (``model.transform`` of its non-blank lines, in order), written as a shard."""
    import io
    import uuid

    block = _tokenise_task.__wrapped__(part, number)
    rows = block.documents[block.lines]  # a blank line holds no token
    M = block.term_counts(block.ids(model.words_), rows, block.n_docs, len(model.words_))
    X = np.asarray(model.document_vectors(M, weighting), dtype=dtype) if block.n_docs else \
        np.empty((0, model.vectors_.shape[1]), dtype=dtype)  # a block inside one long line holds no line start
    entry = {"rows": int(X.shape[0]), "file": f"part-{number:05d}.npy"}
    if out_dir is not None:
        buf = io.BytesIO()
        np.save(buf, X, allow_pickle=False)
        data = buf.getvalue()
        path = os.path.join(out_dir, entry["file"])
        tmp = f"{path}.{uuid.uuid4().hex}.tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        entry["file_bytes"], entry["sha256"] = len(data), sha256_of(data)
    return entry


def vectors_identity(wv, weighting: str, dtype) -> dict:
    """What fixes every document vector: the words, vectors and idf (SHA-256), the weighting and the dtype."""
    import hashlib

    h = hashlib.sha256()
    h.update("\n".join(map(str, wv.words_)).encode())
    h.update(np.ascontiguousarray(wv.vectors_, dtype=np.float64).tobytes())
    if getattr(wv, "idf_", None) is not None:
        h.update(np.ascontiguousarray(wv.idf_, dtype=np.float64).tobytes())
    return {"words": len(wv.words_), "dim": int(wv.vectors_.shape[1]), "weighting": weighting,
            "dtype": np.dtype(dtype).name, "sha256": h.hexdigest()}


def document_vectors(corpus, wv, out: str, *, weighting: str = "count", dtype=np.float32, client=None,
                     retries: int = 2, progress: bool = True, blocksize: str | int = "16MB",
                     overwrite: bool = False, on_start=None) -> dict:
    """Write the document vectors of every non-blank line of a corpus: one ``.npy`` shard per partition.

    Each line's vector is ``wv.transform([line], weighting=weighting)``: its
    term counts (times the idf learned at fit, for ``"tfidf"``) times the
    word vectors, L2-normalised. A document's vector depends only on its own
    words, so partitions give exactly the rows of the whole corpus. Each
    worker writes its own shards; only their sizes and checksums travel.

    Parameters
    ----------
    corpus : path(s)
        As in :func:`count_corpus`.
    wv : fitted :class:`~embedcore.words.PMIWordVectors`
        From :func:`word_vectors`, or fitted in memory; sent to each worker once.
    out : str
        Directory for ``part-00000.npy`` ... (rows in corpus order) and
        ``manifest.json``, built in ``.OUT.partial`` beside it and renamed
        when complete. A run stopped part-way resumes with the same corpus,
        word vectors, weighting and dtype (finished shards are kept).
    weighting : {"count", "tfidf"}, default="count"
    dtype : default=float32
        What the shards hold.
    client, retries, progress, blocksize :
        As in :func:`count_corpus`.
    overwrite : bool, default=False
        Replace an existing ``out`` (otherwise refused).
    on_start : callable, optional
        As in :func:`embedcore.batch.sketch`.

    Returns
    -------
    dict
        The manifest: rows, dimensions, weighting, the shards in order with
        their rows, sizes and SHA-256. :func:`read_document_vectors` reads
        the directory back as one array, after checking it.

    Examples
    --------
    >>> import tempfile
    >>> from distributed import Client
    >>> from embedcore.words import PMIWordVectors
    >>> folder = tempfile.mkdtemp()
    >>> lines = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"]
    >>> with open(os.path.join(folder, "corpus.txt"), "w") as f:
    ...     _ = f.write("\\n".join(lines) + "\\n")
    >>> wv = PMIWordVectors(n_components=2, random_state=0).fit(lines)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     manifest = document_vectors(os.path.join(folder, "corpus.txt"), wv, os.path.join(folder, "docs"),
    ...                                 blocksize=30, client=client, progress=False)
    >>> manifest["rows"], manifest["dim"], manifest["weighting"], manifest["complete"]
    (3, 2, 'count', True)
    >>> D = read_document_vectors(os.path.join(folder, "docs"))  # the rows equal the in-memory vectors
    >>> D.shape, D.dtype, bool(np.allclose(D, wv.transform(lines), atol=1e-6))
    ((3, 2), dtype('float32'), True)
    """
    from dask import delayed
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(wv, "vectors_")
    if weighting not in ("count", "tfidf"):
        raise BatchError(f"weighting must be 'count' or 'tfidf', got {weighting!r}.")
    if weighting == "tfidf" and getattr(wv, "idf_", None) is None:
        raise BatchError("These word vectors have no idf (they were built without document frequencies); "
                         "use weighting='count'.")
    files = text_files(corpus)
    parts = text_parts(files, blocksize)
    dtype = np.dtype(dtype).name
    header = {"format": DOCS_FORMAT, "step": "document-vectors", "weighting": weighting,
              "dim": int(wv.vectors_.shape[1]), "dtype": dtype,
              "input": fingerprint(files, blocksize=blocksize, n_partitions=len(parts)),
              "model": vectors_identity(wv, weighting, dtype)}
    output = ShardedOutput(out, header, identity=("input", "model", "dtype"), overwrite=overwrite,
                           noun="document vectors")
    done = output.done()
    todo = [p for p in range(len(parts)) if p not in done]
    if on_start is not None:
        on_start(len(todo), len(done), output)
    if todo:
        client = current_client(client)
        slim = copy.copy(wv)  # the workers need the vocabulary, the vectors and the idf, not the PMI matrix
        for name in ("cooccurrence_", "pmi_", "normed_", "counts_", "vocabulary_"):
            slim.__dict__.pop(name, None)
        model = broadcast(client, slim)
        task = delayed(_document_block, pure=False)
        tasks = [task(parts[p], model, weighting, p, output.stage, dtype) for p in todo]
        try:
            run_tasks(client, tasks, retries=retries, label="document vectors", progress=progress,
                      on_result=lambda i, entry: output.record(todo[i], entry))
        finally:
            output.save()
            let_go(client, [model])
    output.finish()
    return output.body


def read_document_vectors(path: str) -> np.ndarray:
    """The document vectors :func:`document_vectors` wrote to ``path``, as one array (rows in corpus order).

    ``path`` is the output directory or its ``manifest.json``.

    Refused, with a message saying why: an unfinished run, a shard missing
    or not the one its manifest lists (size, SHA-256, rows), or a shard the
    manifest does not list.

    Examples
    --------
    A run read back is in :func:`document_vectors`'s example; a directory without a manifest is refused:

    >>> read_document_vectors("no/such/dir")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: no/such/dir holds no document vectors: there is no manifest.json.
    """
    file = manifest_file(path, "document vectors")
    folder = os.path.dirname(file)
    try:
        with open(file, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        raise BatchError(f"{file} is not JSON; give the manifest of a document-vectors run unchanged.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != DOCS_FORMAT:
        raise BatchError(f"{file} is not the manifest of a document-vectors run of this version; run the step again.")
    parts = manifest.get("partitions") or {}
    n = int(manifest["input"]["n_partitions"])
    if manifest.get("complete") is not True or len(parts) != n:
        raise BatchError(f"{path} is an unfinished run ({len(parts)} of {n} partitions); run the step again to "
                         "finish it.")
    refuse_unlisted(folder, parts, "document vectors")
    out = []
    for k in sorted(parts, key=int):
        entry = parts[k]
        shard = os.path.join(folder, entry["file"])
        check_entry(entry["file"], shard, entry)
        X = np.load(shard, allow_pickle=False)
        if X.shape != (entry["rows"], manifest["dim"]):
            raise BatchError(f"{entry['file']} holds {X.shape} but the manifest says ({entry['rows']}, "
                             f"{manifest['dim']}).")
        out.append(X)
    X = np.concatenate(out) if out else np.empty((0, manifest["dim"]), dtype=manifest["dtype"])
    if X.shape[0] != manifest.get("rows"):
        raise BatchError(f"{path}: the shards hold {X.shape[0]} rows but the manifest says {manifest.get('rows')}.")
    return X


def write_word2vec(wv, path: str, *, dtype=np.float32) -> None:
    """Write fitted word vectors in word2vec text format (``V k`` line, then ``word v1 ... vk``).

    Values are written in the shortest form that reads back to the same
    ``dtype`` number (float32: about 9 digits). The lab's vector reader
    (:func:`embedcore.io.read_vectors`, the Words page's upload) reads it.

    Examples
    --------
    >>> import tempfile
    >>> from embedcore.io import read_vectors
    >>> from embedcore.words import PMIWordVectors
    >>> wv = PMIWordVectors(n_components=2, random_state=0).fit(["the cat sat on the mat", "the dog sat on the log"])
    >>> path = os.path.join(tempfile.mkdtemp(), "vectors.txt")
    >>> write_word2vec(wv, path)
    >>> open(path).readline()
    '7 2\\n'
    >>> back = read_vectors(path)
    >>> back.meta.iloc[:, 0].tolist() == list(wv.words_), bool(np.allclose(back.X, wv.vectors_, atol=1e-6))
    (True, True)
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    X = np.ascontiguousarray(np.asarray(wv.vectors_, dtype=dtype).T)
    columns = {"word": pa.array(np.asarray(wv.words_, dtype=object), pa.string())}
    columns.update({f"x{i}": X[i] for i in range(X.shape[0])})
    with open(path, "wb") as f:
        f.write(f"{X.shape[1]} {X.shape[0]}\n".encode())
        pacsv.write_csv(pa.table(columns), f, pacsv.WriteOptions(include_header=False, delimiter=" ",
                                                                   quoting_style="none"))


def publish_word2vec(wv, path: str, summary: dict, *, dtype=np.float32) -> dict:
    """Write word vectors and their summary so that neither is ever seen half-written.

    The word2vec text goes to a temporary name beside ``path``; the summary
    (``path + ".json"``) gets ``"complete": true`` and the text's rows, bytes
    and SHA-256; then the text is renamed into place, and the summary last.
    :func:`read_word_vectors` checks the two belong together.

    Examples
    --------
    >>> import tempfile
    >>> from embedcore.words import PMIWordVectors
    >>> wv = PMIWordVectors(n_components=2, random_state=0).fit(["the cat sat on the mat", "the dog sat on the log"])
    >>> path = os.path.join(tempfile.mkdtemp(), "vectors.txt")
    >>> body = publish_word2vec(wv, path, {"step": "word-vectors", "window": 2})
    >>> body["complete"], body["files"]["vectors.txt"]["rows"], sorted(os.listdir(os.path.dirname(path)))
    (True, 7, ['vectors.txt', 'vectors.txt.json'])
    >>> words, X = read_word_vectors(path)  # read back, checked against the summary
    >>> list(words[:3]), X.shape
    (['the', 'on', 'sat'], (7, 2))
    >>> with open(path, "a") as f:
    ...     _ = f.write("extra 0 0\\n")
    >>> read_word_vectors(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: vectors.txt is not the file its summary lists (... bytes, summary: ...; \
checksums differ): it was changed or comes from another run. Run the step again.
    """
    from ._outputs import temporary_beside, write_json

    tmp = temporary_beside(path)
    try:
        write_word2vec(wv, tmp, dtype=dtype)
        body = dict(summary, complete=True, files={os.path.basename(path): {
            "rows": int(len(wv.words_)), "file_bytes": os.path.getsize(tmp), "sha256": sha256_of(tmp)}})
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    write_json(path + ".json", body)
    return body


def read_word_vectors(path: str):
    """Word vectors the word-vectors step wrote, checked against their summary: ``(words, vectors)``.

    Refused, with what to do: a missing or unfinished summary, or a text file
    whose size or SHA-256 is not the one its summary records (another run's
    file, or one changed since).

    Examples
    --------
    A file read back (and one changed afterwards, refused) is in :func:`publish_word2vec`'s example;
    a word2vec file without the summary the step writes beside it is refused:

    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "vectors.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 2\\ncat 0.5 0.25\\n")
    >>> read_word_vectors(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: ...vectors.txt has no summary vectors.txt.json beside it: the run did not \
finish; run the step again.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    summary = path + ".json"
    if not os.path.isfile(path):
        raise BatchError(f"{path} does not exist.")
    if not os.path.isfile(summary):
        raise BatchError(f"{path} has no summary {os.path.basename(summary)} beside it: the run did not finish; "
                         "run the step again.")
    try:
        with open(summary, encoding="utf-8") as f:
            body = json.load(f)
    except (OSError, ValueError):
        raise BatchError(f"{summary} is not JSON; it is not a word-vectors summary.") from None
    entry = (body.get("files") or {}).get(os.path.basename(path)) if isinstance(body, dict) else None
    if not isinstance(entry, dict) or body.get("step") != "word-vectors" or body.get("complete") is not True:
        raise BatchError(f"{summary} is not the summary of a finished word-vectors run of {os.path.basename(path)}; "
                         "run the step again.")
    check_entry(os.path.basename(path), path, entry, what="file", listing="summary")
    with open(path, "rb") as f:
        rows, dim = (int(v) for v in f.readline().split())
        names = ["word"] + [f"x{i}" for i in range(dim)]
        table = pacsv.read_csv(f, read_options=pacsv.ReadOptions(column_names=names),
                               parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
                               convert_options=pacsv.ConvertOptions(column_types={"word": pa.string()}))
    if table.num_rows != rows or rows != entry["rows"]:
        raise BatchError(f"{path} holds {table.num_rows} words but its header and summary say {rows} and "
                         f"{entry['rows']}.")
    X = np.column_stack([table[f"x{i}"].to_numpy() for i in range(dim)]) if dim else np.empty((rows, 0))
    return np.asarray(table["word"].to_pylist(), dtype=object), X
