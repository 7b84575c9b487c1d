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
    broadcast,
    current_client,
    let_go,
    refusals,
    run_tasks,
    tree_sum,
)
from ._inputs import split_compression, text_files

__all__ = ["CorpusCounts", "count_corpus", "vectors_from_counts", "word_vectors", "write_word2vec", "tokens_of_lines",
           "document_vectors", "read_document_vectors"]

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
def _tokenise_task(lines: list[str], part: int) -> Tokens:
    return tokens_of_lines(lines, f"Partition {part} of the corpus")


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


@refusals
def _count_block(block: Tokens, index: pd.Index, window: int, context: str, weighted: bool) -> CorpusCounts:
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
    return CorpusCounts(C, np.bincount(M.indices, minlength=V).astype(np.int64), block.n_docs)


def check_params(params: dict):
    """The estimator for ``params``, its settings checked by its own constraints (as ``fit`` checks them)."""
    from sklearn.utils._param_validation import InvalidParameterError

    from ..words import PMIWordVectors

    try:
        wv = PMIWordVectors(**params)
    except TypeError as e:
        raise BatchError(f"Unknown word-vector setting: {e}.") from None
    try:
        wv._validate_params()
    except InvalidParameterError as err:
        raise BatchError(str(err)) from None
    return wv


def _blocks(client, corpus, blocksize, keep_tokens: bool, retries: int) -> list:
    import dask.bag as db
    from dask import delayed

    files = text_files(corpus)
    compressed = any(split_compression(f)[1] for f in files)
    bag = db.read_text(files, blocksize=None if compressed else blocksize, encoding="utf-8", compression="infer")
    task = delayed(_tokenise_task, pure=False)
    blocks = [task(p, i) for i, p in enumerate(bag.to_delayed())]
    return client.persist(blocks, retries=retries) if keep_tokens else blocks


def count_corpus(corpus, *, window: int = 2, context: str = "window", weighted: bool = False, min_count: int = 1,
                 max_vocab: int | None = None, client=None, retries: int = 2, progress: bool = True,
                 blocksize: str | int = "16MB", keep_tokens: bool = True, check=None) -> CorpusCounts:
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

    Returns
    -------
    CorpusCounts
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
        total = tree_sum(client, [task(b, index, wv.window, wv.context, wv.weighted) for b in blocks],
                         retries=retries, label="count pairs", progress=progress, split_every=2)
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
                 keep_tokens: bool = True, **params):
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
    """
    wv = check_params(params)
    counting = {k: params[k] for k in _COUNT_PARAMS if k in params}
    counts = count_corpus(corpus, client=client, retries=retries, progress=progress, blocksize=blocksize,
                          keep_tokens=keep_tokens, check=lambda c: check_fitted_vocabulary(wv, c), **counting)
    return vectors_from_counts(counts, **params)


@refusals
def _document_block(block: Tokens, model, weighting: str) -> np.ndarray:
    """A block's document vectors: ``model.transform`` of its non-blank lines, in order."""
    rows = block.documents[block.lines]  # a blank line holds no token
    M = block.term_counts(block.ids(model.words_), rows, block.n_docs, len(model.words_))
    return model.document_vectors(M, weighting)


def document_vectors(corpus, wv, out: str, *, weighting: str = "count", dtype=np.float32, client=None,
                     retries: int = 2, progress: bool = True, blocksize: str | int = "16MB") -> dict:
    """Write the document vectors of every non-blank line of a corpus: one ``.npy`` shard per partition.

    Each line's vector is ``wv.transform([line], weighting=weighting)``: its
    term counts (times the idf learned at fit, for ``"tfidf"``) times the
    word vectors, L2-normalised. A document's vector depends only on its own
    words, so partitions give exactly the rows of the whole corpus.

    Parameters
    ----------
    corpus : path(s)
        As in :func:`count_corpus`.
    wv : fitted :class:`~embedcore.words.PMIWordVectors`
        From :func:`word_vectors`, or fitted in memory; sent to each worker once.
    out : str
        Directory for ``part-00000.npy`` ... (rows in corpus order) and ``manifest.json``.
    weighting : {"count", "tfidf"}, default="count"
    dtype : default=float32
        What the shards hold.
    client, retries, progress, blocksize :
        As in :func:`count_corpus`.

    Returns
    -------
    dict
        The manifest: rows, dimensions, weighting and the shards in order.
        :func:`read_document_vectors` reads the directory back as one array.
    """
    from dask import delayed
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(wv, "vectors_")
    if weighting not in ("count", "tfidf"):
        raise BatchError(f"weighting must be 'count' or 'tfidf', got {weighting!r}.")
    if weighting == "tfidf" and not hasattr(wv, "idf_"):
        raise BatchError("These word vectors have no idf (they were built without document frequencies); "
                         "use weighting='count'.")
    if os.path.isfile(out):
        raise BatchError(f"{out} is a file; give a directory for the document vectors.")
    os.makedirs(out, exist_ok=True)
    client = current_client(client)
    slim = copy.copy(wv)  # the workers need the vocabulary, the vectors and the idf, not the PMI matrix
    for name in ("cooccurrence_", "pmi_", "normed_", "counts_", "vocabulary_"):
        slim.__dict__.pop(name, None)
    model = broadcast(client, slim)
    blocks = _blocks(client, corpus, blocksize, keep_tokens=False, retries=retries)
    task = delayed(_document_block, pure=False)
    rows = [0] * len(blocks)

    def write(i: int, X: np.ndarray) -> None:
        np.save(os.path.join(out, f"part-{i:05d}.npy"), np.asarray(X, dtype=dtype))
        rows[i] = len(X)

    run_tasks(client, [task(b, model, weighting) for b in blocks], retries=retries, label="document vectors",
              progress=progress, on_result=write)
    manifest = {"step": "document-vectors", "weighting": weighting, "rows": sum(rows),
                "dim": int(wv.vectors_.shape[1]), "dtype": np.dtype(dtype).name,
                "partitions": [{"file": f"part-{i:05d}.npy", "rows": r} for i, r in enumerate(rows)]}
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def read_document_vectors(path: str) -> np.ndarray:
    """The document vectors :func:`document_vectors` wrote to ``path``, as one array (rows in corpus order)."""
    try:
        with open(os.path.join(path, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise BatchError(f"{path} has no manifest.json: it is not a document-vectors directory.") from None
    parts = [np.load(os.path.join(path, p["file"]), allow_pickle=False) for p in manifest["partitions"]]
    return np.concatenate(parts) if parts else np.empty((0, manifest["dim"]), dtype=manifest["dtype"])


def write_word2vec(wv, path: str, *, dtype=np.float32) -> None:
    """Write fitted word vectors in word2vec text format (``V k`` line, then ``word v1 ... vk``).

    Values are written in the shortest form that reads back to the same
    ``dtype`` number (float32: about 9 digits). The lab's vector reader
    (:func:`embedcore.io.read_vectors`, the Words page's upload) reads it.
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
