"""Batch forms of the lab's transforms, run on Dask: on this machine's cores or on a cluster.

The lab is for exploring what fits in a page; these steps apply the same
transforms to data that does not fit in memory, partition by partition:

* :func:`sketch`: EMDE sketches of sets in Parquet or CSV files, written as
  shards with a manifest, resumable (:func:`read_sketches` reads them back);
* :func:`word_vectors`: PMI word vectors of a text corpus, counted per
  partition and summed (:func:`write_word2vec` writes the lab's format),
  and :func:`document_vectors` of its lines;
* :func:`category_kernel`: a spectral category encoding learned from a
  table's target, from per-partition statistics (:func:`write_category_kernel`
  writes what the Categories page opens, :func:`read_category_kernel` reads it).

Each gives what the in-memory estimator gives on the whole data. Open a
cluster with :func:`cluster` (a LocalCluster, or ``scheduler=`` an address,
checked first by :func:`check_scheduler`); ``python -m embedcore`` runs the
same steps from a shell.

Every task reads its own partition of the input (Parquet row ranges of
``partition_rows``, CSV and text blocks of whole lines), so a mistake in
the data is reported with its file and line and is never retried. Outputs
are staged beside their target and renamed when complete, with a manifest
of every shard's rows, bytes and SHA-256; the readers refuse unfinished,
mixed or altered outputs (see :mod:`embedcore.batch._outputs`). The
sketch step and the document vectors resume an interrupted run.

Examples
--------
>>> import os, tempfile
>>> import numpy as np, pandas as pd
>>> from embedcore.emde import EMDE
>>> emde = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(np.eye(3))
>>> folder = tempfile.mkdtemp()
>>> pd.DataFrame({"items": ["0 1", "2", "1 1"]}).to_csv(os.path.join(folder, "sets.csv"), index=False)
>>> with cluster(workers=1, processes=False) as client:
...     run = sketch(emde, os.path.join(folder, "sets.csv"), os.path.join(folder, "out"), progress=False)
>>> S = read_sketches(os.path.join(folder, "out"))
>>> bool((S != emde.sketch([[0, 1], [2], [1, 1]])).nnz == 0), run.computed
(True, 1)
"""

from ._cluster import BatchError, SchedulerError, check_scheduler, cluster, versions
from .categories import (
    CategoryKernel,
    CategoryStatistics,
    category_kernel,
    category_statistics,
    read_category_kernel,
    table_csv,
    write_category_kernel,
)
from .sketch_reading import load_items, read_manifest, read_sketches
from .sketches import RandomSets, SetBatch, SketchRun, TableSets, sketch
from .words import (
    CorpusCounts,
    count_corpus,
    document_vectors,
    publish_word2vec,
    read_document_vectors,
    read_word_vectors,
    vectors_from_counts,
    word_vectors,
    write_word2vec,
)

__all__ = [
    "BatchError",
    "SchedulerError",
    "CategoryKernel",
    "CategoryStatistics",
    "CorpusCounts",
    "RandomSets",
    "SetBatch",
    "SketchRun",
    "TableSets",
    "category_kernel",
    "category_statistics",
    "check_scheduler",
    "cluster",
    "count_corpus",
    "document_vectors",
    "load_items",
    "publish_word2vec",
    "read_category_kernel",
    "read_document_vectors",
    "read_manifest",
    "read_sketches",
    "read_word_vectors",
    "sketch",
    "table_csv",
    "vectors_from_counts",
    "versions",
    "word_vectors",
    "write_category_kernel",
    "write_word2vec",
]
