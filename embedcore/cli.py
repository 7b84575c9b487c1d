"""The batch steps from a shell: ``python -m embedcore <step> ...``.

Steps: ``sketch`` (EMDE sketches of sets), ``word-vectors`` (PMI word
vectors of a corpus) and ``category-kernel`` (spectral category codes of a
table's target). Each runs on a LocalCluster of this machine's cores, or on
a running Dask cluster given by ``--scheduler tcp://host:8786`` (or
``--scheduler-file``), checked with a Dask handshake before any work.

Exit status: 0 done; 1 an input or output that cannot be used (one line on
stderr saying what to fix; ``--traceback`` shows the whole story when
reporting a bug); 2 no Dask scheduler at the address given; 130
interrupted (Ctrl-C), with one line saying what was kept.

Outputs are never half-written: a directory output is built in
``.NAME.partial`` beside it and renamed when complete, a file through a
temporary name; an existing output is replaced only with ``--overwrite``.
``sketch`` and ``--doc-vectors`` resume an interrupted run (finished
partitions are kept); the counting steps start over.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import time

__all__ = ["main", "build_parser"]

_EPILOG = """\
examples:
  python -m embedcore sketch items.npy baskets/ --column items --out sketches/
  python -m embedcore word-vectors corpus/ --window 5 --min-count 5 --out vectors.txt
  python -m embedcore category-kernel sales.parquet --column store --target amount --out codes.csv
  python -m embedcore sketch items.npy baskets/ --out sketches/ --scheduler tcp://10.0.0.5:8786

Every step runs on a LocalCluster with one worker per core unless --scheduler (or --scheduler-file)
names a running Dask scheduler (its workers need this package and must see the input and output
paths). The dashboard's address is printed at start.

Outputs: a directory (sketch --out, --doc-vectors) holds manifest.json ("complete": true, rows,
each shard's rows, bytes and SHA-256) and part-00000.* shards; it is built in .NAME.partial beside
it and renamed when the last shard is in. Files (word vectors, category codes) are written under a
temporary name and renamed; their .json summary records each file's bytes and SHA-256. Readers
(read_sketches, read_document_vectors, read_word_vectors, the lab's uploads) refuse unfinished,
mixed or altered outputs. An existing output is refused unless --overwrite. Ctrl-C: sketch and
--doc-vectors keep finished partitions and resume when run again; the other steps start over.

Exit status: 0 done, 1 unusable input or output, 2 no Dask scheduler at the address, 130 interrupted.

Outputs open in the lab: word vectors on the Words page (word2vec text), category kernels on the
Categories page ("from the command line": upload codes.csv.npz), sketches on the Sets page
(Benchmark tab: upload the output directory zipped, python -m zipfile -c DIR.zip DIR) or with
embedcore.batch.read_sketches(DIR).
"""


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--overwrite", action="store_true", help="replace an existing output (otherwise refused)")
    g = parser.add_argument_group("cluster")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a running Dask scheduler (tcp://host:8786); default: a LocalCluster here")
    g.add_argument("--scheduler-file", metavar="FILE",
                   help="the JSON file `dask scheduler --scheduler-file FILE` wrote (instead of --scheduler)")
    g.add_argument("--connect-timeout", type=float, default=5.0, metavar="SECONDS",
                   help="how long the scheduler has to answer the handshake (default 5)")
    g.add_argument("--workers", type=int, metavar="N", help="LocalCluster workers (default: one per core)")
    g.add_argument("--threads-per-worker", type=int, default=1, metavar="N",
                   help="threads of each LocalCluster worker (default 1: one task per core)")
    g.add_argument("--memory-limit", default="auto", metavar="BYTES",
                   help="memory per LocalCluster worker, e.g. 4GB (default: the machine's memory split evenly)")
    g.add_argument("--spill-dir", metavar="DIR",
                   help="where LocalCluster workers spill data that does not fit their memory (default: the "
                   "system's temporary directory)")
    g.add_argument("--retries", type=int, default=2, metavar="N",
                   help="times a task is retried when its worker dies (default 2; a mistake in the data is "
                   "never retried)")
    g.add_argument("--quiet", action="store_true", help="no progress bar and no dashboard address")
    g.add_argument("--traceback", action="store_true", help="show the full traceback of an error")


def _step(sub, name: str, run, summary: str, *aliases: str) -> argparse.ArgumentParser:
    """A step's parser: ``summary`` in the list of steps, ``run``'s docstring as its description; the step's
    own options follow, then the ones every step takes (:func:`_common`)."""
    p = sub.add_parser(name, aliases=list(aliases), help=summary, description=inspect.cleandoc(run.__doc__))
    p.set_defaults(run=run)
    return p


def _table_options(p: argparse.ArgumentParser, rows: str, partition_rows: int) -> None:
    """How a step reads a table: its format, and how it is cut into partitions (``rows`` names a row)."""
    p.add_argument("--format", choices=["parquet", "csv"], help="input format (default: from the file names)")
    p.add_argument("--blocksize", default="64MB", help="CSV text per partition (default 64MB)")
    p.add_argument("--partition-rows", type=int, default=partition_rows, metavar="N",
                   help=f"{rows} per partition of a Parquet file: row groups are merged up to N or split into "
                   f"ranges of at most N rows, so one large file keeps every worker busy (default {partition_rows})")


def _sketch_parser(sub) -> None:
    p = _step(sub, "sketch", _run_sketch, "EMDE sketches of sets in Parquet or CSV files")
    p.add_argument("items", help="item vectors: .npy, Parquet, or CSV/TSV/word2vec text; a text column "
                   "names the items (then set ids are names, otherwise positions 0, 1, ...)")
    p.add_argument("sets", nargs="+", help="Parquet or CSV/TSV files, directories or globs holding the sets")
    p.add_argument("--out", help="output directory for shards and manifest.json (required unless --dry-run)")
    p.add_argument("--column", default="items",
                   help="column of item ids: text separated by spaces or commas, or a list column (default items)")
    p.add_argument("--weights", metavar="COLUMN", help="column with one weight per item, laid out like --column")
    _table_options(p, "sets", 100_000)
    p.add_argument("-K", "--hyperplanes", type=int, default=7, help="K, hyperplanes per partitioning (default 7)")
    p.add_argument("-N", "--partitionings", type=int, default=16, help="N, partitionings (default 16)")
    p.add_argument("--offsets", choices=["data", "quantile"], default="data", help="where hyperplanes cut")
    p.add_argument("--weighting", choices=["counts", "binary"], default="counts", help="item weights in a set")
    p.add_argument("--norm", choices=["none", "l1", "l2", "max"], default="none", help="sketch normalisation")
    p.add_argument("--norm-scope", choices=["row", "partition"], default="row", help="normalise per row or block")
    p.add_argument("--drop-empty", action="store_true", help="keep only buckets some item falls in")
    p.add_argument("--seed", type=int, default=0, help="seed of the hyperplanes (default 0)")
    p.add_argument("--unknown", choices=["error", "skip"], default="error",
                   help="an id with no vector stops the run (error) or is left out and counted (skip)")
    p.add_argument("--shard-format", choices=["npz", "parquet"], default="npz",
                   help="scipy .npz shards, or Parquet (row, column, value)")
    p.add_argument("--compress", action="store_true", help="compress shards (smaller, slower)")
    p.add_argument("--dry-run", action="store_true", help="sketch and count without writing anything")

    _common(p)

def _words_parser(sub) -> None:
    p = _step(sub, "word-vectors", _run_words, "PMI word vectors of a text corpus", "cooccur")
    p.add_argument("corpus", nargs="+", help="text files, directories or globs (.gz/.bz2/.xz read whole)")
    p.add_argument("--out", required=True, help="word2vec text file to write")
    p.add_argument("--window", type=int, default=2, help="words on each side (default 2)")
    p.add_argument("--context", choices=["window", "document"], default="window",
                   help="window: words at most --window apart (default); document: any two in the same line")
    p.add_argument("--weighted", action="store_true", help="count a pair d apart as 1/d")
    p.add_argument("--min-count", type=int, default=1, help="least count of a word kept (default 1)")
    p.add_argument("--max-vocab", type=int, help="keep at most this many words, most frequent first")
    p.add_argument("--alpha", type=float, default=0.75, help="context smoothing (default 0.75; 1 = none)")
    p.add_argument("--shift", type=float, default=1.0, help="k of shifted PMI: log(k) is subtracted (default 1)")
    p.add_argument("--pmi", action="store_true", help="keep negative PMI (default: PPMI)")
    p.add_argument("--dim", type=int, default=100, help="dimensions (default 100)")
    p.add_argument("--eig-weight", type=float, default=0.5, help="vectors are U Sigma^p (default 0.5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomised SVD (default 0)")
    p.add_argument("--blocksize", default="16MB", help="text per partition (default 16MB)")
    p.add_argument("--reread", action="store_true",
                   help="tokenise the corpus twice instead of keeping the tokens between passes")
    p.add_argument("--float64", action="store_true", help="write float64 values (default float32)")
    p.add_argument("--max-nnz", type=int, default=200_000_000, metavar="N",
                   help="most co-occurrence non-zeros gathered on this machine (default 200000000, about 2.4 GB)")
    p.add_argument("--doc-vectors", metavar="DIR",
                   help="also write every line's document vector to DIR (part-00000.npy ..., manifest.json), "
                   "each worker writing its own shards")
    p.add_argument("--weighting", choices=["count", "tfidf"], default="count",
                   help="document vectors from term counts (default) or counts times the idf learned from the "
                   "corpus, as the Words page's tf-idf document vectors")

    _common(p)

def _categories_parser(sub) -> None:
    p = _step(sub, "category-kernel", _run_categories, "spectral category codes learned from a table's target")
    p.add_argument("table", nargs="+", help="Parquet or CSV/TSV files, directories or globs")
    p.add_argument("--column", required=True, help="the category column")
    p.add_argument("--target", required=True, help="the numeric target column")
    p.add_argument("--out", required=True, help="CSV file to write")
    p.add_argument("--kernel", choices=["wasserstein", "kl"], default="wasserstein", help="distance of two "
                   "categories' target distributions (default wasserstein)")
    p.add_argument("--gamma", default="median", help="kernel width, or 'median' for 1/median distance (default)")
    p.add_argument("--components", default="eigengap", help="eigenvectors kept: 'eigengap' (default) or a number")
    p.add_argument("--keep-trivial", action="store_true", help="also keep the first eigenvector")
    p.add_argument("--log1p", action="store_true", help="use log(1 + target)")
    p.add_argument("--bins", type=int, default=32, help="histogram bins of the KL kernel (default 32)")
    p.add_argument("--smoothing", type=float, default=0.5, help="added to each KL bin (default 0.5)")
    p.add_argument("--value-bins", default="1024", metavar="B|exact",
                   help="Wasserstein: count the target in B equal bins over its range, found by a first pass on "
                   "the workers (default 1024; each distance is then within one bin width, (max - min) / B, of "
                   "the exact one, and at most categories x B pairs are gathered); whole-number targets spanning "
                   "at most B values are counted exactly anyway. 'exact': count every distinct value, as the "
                   "Categories page does")
    _table_options(p, "rows", 1_000_000)
    p.add_argument("--max-pairs", type=int, default=20_000_000, metavar="N",
                   help="most distinct (category, target value) pairs gathered, checked on the workers while "
                   "summing (default 20000000); past it, use fewer --value-bins")

    _common(p)

def build_parser() -> argparse.ArgumentParser:
    """The ``python -m embedcore`` argument parser: one sub-command per step, each with its defaults.

    Examples
    --------
    >>> args = build_parser().parse_args(["word-vectors", "corpus.txt", "--out", "v.txt", "--window", "5"])
    >>> args.step, args.corpus, args.window, args.dim, args.scheduler
    ('word-vectors', ['corpus.txt'], 5, 100, None)
    """
    parser = argparse.ArgumentParser(
        prog="python -m embedcore", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG,
        description="Embedding Lab's batch steps on Dask: the lab's transforms applied to data larger than memory.")
    sub = parser.add_subparsers(dest="step", required=True, metavar="STEP")
    _sketch_parser(sub)
    _words_parser(sub)
    _categories_parser(sub)
    return parser


# --------------------------------------------------------------------------- the steps

#: What an interrupted run leaves, for the line printed on Ctrl-C (set by the step as it goes).
_KEPT: dict = {}


def _cluster(args):
    """The step's client (a LocalCluster's workers ignore Ctrl-C: this process stops the run, see
    :mod:`embedcore.batch._worker`); the dashboard's address is printed once it is up."""
    from .batch import cluster

    def started(client):
        if not args.quiet:
            link = client.dashboard_link if _has_dashboard() else "none (install bokeh for Dask's dashboard)"
            print(f"dashboard: {link}", file=sys.stderr, flush=True)

    return cluster(args.scheduler, workers=args.workers, threads_per_worker=args.threads_per_worker,
                   memory_limit=args.memory_limit, quiet=True, timeout=args.connect_timeout,
                   scheduler_file=args.scheduler_file, local_directory=args.spill_dir, on_start=started)


def _has_dashboard() -> bool:
    from importlib.util import find_spec

    return find_spec("bokeh") is not None


def _out_file(path: str, overwrite: bool, *also: str) -> None:
    from .batch import BatchError
    from .batch._outputs import refuse_existing

    if os.path.isdir(path):
        raise BatchError(f"--out {path} is a directory; give a file name.")
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise BatchError(f"The folder of --out {path} does not exist.")
    refuse_existing(path, *also, overwrite=overwrite)


def _staged(output) -> None:
    _KEPT["output"] = output


def _run_sketch(args) -> int:
    """Fit EMDE on the item vectors in memory, then sketch every set of the partitioned input on the
    cluster: each task reads its partition and writes one shard, listed with its rows, bytes and SHA-256
    in manifest.json. The output is built in .OUT.partial beside --out and renamed when complete. Run
    again to finish an interrupted run: finished partitions are kept."""
    from .batch import BatchError, TableSets, load_items, sketch
    from .batch._outputs import refuse_existing
    from .emde import EMDE

    if args.dry_run:
        args.out = None
    elif not args.out:
        raise BatchError("Give --out DIR for the shards and manifest (or --dry-run to write nothing).")
    elif os.path.isfile(args.out):
        raise BatchError(f"--out {args.out} is a file; give a directory for the shards.")
    else:
        refuse_existing(args.out, overwrite=args.overwrite)
    X, names = load_items(args.items)
    source = TableSets(args.sets, column=args.column, weights=args.weights, format=args.format,
                       blocksize=args.blocksize, partition_rows=args.partition_rows)
    emde = EMDE(n_hyperplanes=args.hyperplanes, n_partitions=args.partitionings, offsets=args.offsets,
                weighting=args.weighting, norm=None if args.norm == "none" else args.norm,
                norm_scope=args.norm_scope, drop_empty=args.drop_empty, random_state=args.seed).fit(X)
    _KEPT["resumes"] = args.out is not None
    with _cluster(args) as client:
        run = sketch(emde, source, args.out, item_names=names, unknown=args.unknown, client=client,
                     retries=args.retries, shard_format=args.shard_format, compress=args.compress,
                     overwrite=args.overwrite, progress=not args.quiet, on_start=lambda *a: _staged(a[2]))
    shape = run.manifest["shape"]
    unknown = sum(v["unknown_items"] for v in run.manifest["partitions"].values())
    where = f"-> {args.out}" if args.out else "(dry run: nothing written; shards would take " \
        f"{sum(v['bytes'] for v in run.manifest['partitions'].values()):,} bytes uncompressed)"
    if run.discarded:
        print(f"{run.discarded} shards of an interrupted run with other settings or input were discarded",
              file=sys.stderr)
    print(f"sketched {run.computed} partitions ({run.skipped} kept from an interrupted run): {shape[0]:,} sets x "
          f"{shape[1]:,} columns, {run.nnz:,} non-zeros, {unknown:,} unknown items left out, {run.seconds:.1f} s "
          f"{where}")
    return 0


def _run_words(args) -> int:
    """Count words, then co-occurrences, per partition of a corpus (one document per line, UTF-8), sum
    them on the cluster, and fit PPMI + SVD on this machine exactly as the Words page does (the one step
    that runs on one machine: it holds the V x V co-occurrence matrix, about 12 bytes per non-zero, and
    refuses more than --max-nnz non-zeros before gathering them). Writes word2vec text to --out and a
    summary (bytes and SHA-256 of --out) to --out.json. Interrupted, it starts over; --doc-vectors
    resumes."""
    from .batch import (
        BatchError,
        count_corpus,
        vectors_from_counts,
        versions,
    )
    from .batch._inputs import fingerprint, text_files
    from .batch._outputs import refuse_existing
    from .batch.words import (
        check_fitted_vocabulary,
        check_params,
        document_vectors,
        publish_word2vec,
    )

    _out_file(args.out, args.overwrite, args.out + ".json")
    if args.doc_vectors:
        if os.path.isfile(args.doc_vectors):
            raise BatchError(f"--doc-vectors {args.doc_vectors} is a file; give a directory.")
        refuse_existing(args.doc_vectors, overwrite=args.overwrite)
    if args.weighting != "count" and not args.doc_vectors:
        raise BatchError("--weighting applies to document vectors: add --doc-vectors DIR.")
    files = text_files(args.corpus)
    params = dict(window=args.window, context=args.context, weighted=args.weighted, min_count=args.min_count,
                  max_vocab=args.max_vocab, alpha=args.alpha, shift=args.shift, positive=not args.pmi,
                  n_components=args.dim, eig_weight=args.eig_weight, random_state=args.seed)
    wv = check_params(params)
    t0 = time.perf_counter()
    docs = None
    dtype = "float64" if args.float64 else "float32"
    with _cluster(args) as client:
        counts = count_corpus(files, window=args.window, context=args.context, weighted=args.weighted,
                              min_count=args.min_count, max_vocab=args.max_vocab, client=client,
                              retries=args.retries, progress=not args.quiet, blocksize=args.blocksize,
                              keep_tokens=not args.reread, check=lambda c: check_fitted_vocabulary(wv, c),
                              max_nnz=args.max_nnz)
        wv = vectors_from_counts(counts, **params)
        summary = {
            "step": "word-vectors", "params": params, "input": fingerprint(files, blocksize=args.blocksize),
            "partitions": counts.n_partitions, "documents": counts.n_documents, "tokens": counts.n_tokens,
            "vocabulary": len(wv.words_), "cooccurrence_nnz": int(counts.cooccurrence.nnz),
            "singular_values": wv.singular_values_.tolist(), "pmi_norm2": wv.pmi_norm2_,
            "document_vectors": None if not args.doc_vectors else {"dir": args.doc_vectors,
                                                                    "weighting": args.weighting},
            "versions": versions()}
        if args.doc_vectors:
            _KEPT["resumes"] = True
            docs = document_vectors(files, wv, args.doc_vectors, weighting=args.weighting, dtype=dtype,
                                    client=client, retries=args.retries, progress=not args.quiet,
                                    blocksize=args.blocksize, overwrite=args.overwrite,
                                    on_start=lambda todo, done, output: (_staged(output), _KEPT.update(done=done)))
    # last: an interrupted run leaves no word vectors, so the same command runs again without --overwrite
    publish_word2vec(wv, args.out, summary, dtype=dtype)
    also = "" if docs is None else (f", {docs['rows']:,} document vectors ({args.weighting}) -> {args.doc_vectors} "
                                    f"({_KEPT.get('done', 0)} partitions kept from an interrupted run)")
    print(f"{counts.n_tokens:,} tokens in {counts.n_documents:,} documents ({counts.n_partitions} partitions): "
          f"{len(wv.words_):,} words x {wv.vectors_.shape[1]} dimensions in {time.perf_counter() - t0:.1f} s "
          f"-> {args.out} (summary {args.out}.json){also}")
    return 0


def _number(text: str, option: str, kind=float):
    from .batch import BatchError

    try:
        return kind(text)
    except ValueError:
        raise BatchError(f"{option} must be a number or its word, got {text!r}.") from None


def _run_categories(args) -> int:
    """Learn a category-similarity kernel from the target's distribution within each category
    (per-partition counts, summed), and the spectral code of every category, as the Categories page
    does. Writes category,e1..ek to --out, the spectrum and settings to --out.json, and everything
    (kernel, spectrum, codes, settings) to --out.npz, which the Categories page opens."""
    from .batch import BatchError, category_kernel, versions
    from .batch._inputs import open_table
    from .batch.categories import check_kernel_params, write_category_kernel

    _out_file(args.out, args.overwrite, args.out + ".json", args.out + ".npz")
    gamma = "median" if args.gamma == "median" else _number(args.gamma, "--gamma")
    comps = "eigengap" if args.components == "eigengap" else _number(args.components, "--components", int)
    if args.value_bins != "exact" and not args.value_bins.isdigit():
        raise BatchError(f"--value-bins must be a number of bins or 'exact', got {args.value_bins!r}.")
    value_bins = None if args.value_bins == "exact" else int(args.value_bins)
    check_kernel_params(args.kernel, gamma, comps, args.bins, args.smoothing, value_bins,
                         "log1p" if args.log1p else None)
    files, _ = open_table(args.table, "table", [args.column, args.target], args.format)
    t0 = time.perf_counter()
    with _cluster(args) as client:
        ck = category_kernel(files, args.column, args.target, kernel=args.kernel, gamma=gamma, n_components=comps,
                             keep_trivial=args.keep_trivial, target_transform="log1p" if args.log1p else None,
                             bins=args.bins, smoothing=args.smoothing, value_bins=value_bins, client=client,
                             retries=args.retries, progress=not args.quiet, format=args.format,
                             blocksize=args.blocksize, partition_rows=args.partition_rows, max_pairs=args.max_pairs,
                             n_jobs=-1)  # the distances: a batch run has the machine
    write_category_kernel(ck, args.out, versions=versions(), overwrite=args.overwrite)
    k = ck.embedding.shape[1]
    width = ck.params["bin_width"]
    counted = ("" if args.kernel == "kl" else ", target values counted exactly" if width is None
               else f", target in {value_bins:,} bins of width {width:.4g}")
    print(f"{len(ck.categories):,} categories from {ck.rows:,} rows ({ck.dropped:,} left out for a missing value)"
          f"{counted}, gamma {ck.gamma:.4g}, {k} code column{'s' * (k != 1)} in {time.perf_counter() - t0:.1f} s "
          f"-> {args.out} (summary {args.out}.json, kernel {args.out}.npz: open it on the Categories page)")
    return 0


def _interrupted(name: str) -> str:
    output = _KEPT.get("output")
    if _KEPT.get("resumes") and output is not None and output.stage is not None:
        n, total = len(output.body["partitions"]), output.body.get("input", {}).get("n_partitions", "?")
        return (f"{name}: interrupted; {n} of {total} partitions are kept in {output.stage}: run the same command "
                "again to resume.")
    return f"{name}: interrupted; no output was written: run the same command again to start over."


def main(argv: list[str] | None = None) -> int:
    """Run one step; the exit status: 0, 1 for an input or output that cannot be used, 2 when no scheduler
    answers, 130 when interrupted.

    Parameters
    ----------
    argv : list of str, optional
        The command line after ``python -m embedcore``; by default ``sys.argv[1:]``.

    Examples
    --------
    An output folder that does not exist is refused before any cluster starts,
    with one line on stderr:

    >>> import contextlib, sys
    >>> with contextlib.redirect_stderr(sys.stdout):
    ...     status = main(["category-kernel", "sales.csv", "--column", "store", "--target", "amount",
    ...                    "--out", "no-such-folder/codes.csv"])
    python -m embedcore category-kernel: error: The folder of --out no-such-folder/codes.csv does not exist.
    >>> status
    1
    """
    from .batch._cluster import SchedulerError, end_line

    args = build_parser().parse_args(argv)
    name = f"python -m embedcore {args.step}"
    _KEPT.clear()
    if args.scheduler and args.scheduler_file:
        print(f"{name}: error: give --scheduler or --scheduler-file, not both.", file=sys.stderr)
        return 1
    try:
        return args.run(args)
    except KeyboardInterrupt:
        end_line()
        print(_interrupted(name), file=sys.stderr)
        return 130
    except SchedulerError as e:
        if args.traceback:
            raise
        end_line()
        print(f"{name}: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    except (ValueError, OSError, TimeoutError, MemoryError) as e:  # BatchError, DataError, the readers' own errors
        if args.traceback:
            raise
        what = "out of memory on this machine" if isinstance(e, MemoryError) else ""
        end_line()
        print(f"{name}: error: {' '.join(str(e).split()) or what or type(e).__name__}", file=sys.stderr)
        return 1
    except Exception as e:
        from distributed import KilledWorker

        if not isinstance(e, KilledWorker) or args.traceback:
            raise
        end_line()
        print(f"{name}: error: a worker died {args.retries + 1} times on the same task ({e}); it may run out "
              "of memory: use smaller partitions (--blocksize, --partition-rows) or fewer, larger workers.",
              file=sys.stderr)
        return 1
    finally:
        _KEPT.clear()
