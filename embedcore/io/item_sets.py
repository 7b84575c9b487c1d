"""Item vectors plus sets of those items, read together."""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from .results import MAX_VECTOR_ROWS, DataError, ItemSets
from .sets import read_sets
from .files import plural, quote
from .vectors import read_vectors


def read_item_sets(
    vectors: Any,
    sets: Any,
    vectors_filename: str | None = None,
    sets_filename: str | None = None,
    *,
    seed: int = 0,
) -> ItemSets:
    """Item vectors (named by their first text column) and sets of those items.

    Items in the sets that have no vector are left out and counted in a
    notice; a sets file none of whose items has a vector is an error.

    Examples
    --------
    >>> data = read_item_sets(b"apple,1,0\\npear,0,1\\n", b"apple pear\\npear plum\\n", "fruit.csv", "baskets.txt")
    >>> data.items, data.sets, data.vectors.shape
    (['apple', 'pear'], [['apple', 'pear'], ['pear']], (2, 2))
    >>> data.notices[-1]
    "1 item occurrence in baskets.txt has no vector (first: 'plum'); left out."
    """
    v = read_vectors(vectors, vectors_filename, seed=seed, max_rows=MAX_VECTOR_ROWS)
    s = read_sets(sets, sets_filename, seed=seed)
    if v.meta is None or v.meta.shape[1] == 0:
        names = [str(i) for i in range(len(v.X))]
        v.notices.append(f"{v.name} has no text column, so items are named by row number (0, 1, ...).")
    else:
        names = [str(x) for x in v.meta.iloc[:, 0]]
    index = pd.Index(names)
    if not index.is_unique:
        dup = index[index.duplicated()][0]
        raise DataError(f"{v.name}: the item {quote(dup)} appears more than once; each item needs one vector.")
    lengths = np.fromiter(map(len, s.sets), dtype=np.int64, count=len(s.sets))
    flat = list(chain.from_iterable(s.sets))
    known = index.get_indexer(flat) >= 0 if flat else np.zeros(0, dtype=bool)
    result = ItemSets(f"{v.name} + {s.name}", items=names, vectors=v.X, sets=s.sets, labels=s.labels)
    result.notices = v.notices + s.notices
    result.dropped = {**v.dropped, **s.dropped}
    if flat and not known.any():
        raise DataError(
            f"None of the items in {s.name} (e.g. {quote(flat[0])}) has a vector in {v.name} "
            f"(items there look like {quote(names[0])}). The sets must use the names in the vectors' first text column."
        )
    if not known.all():
        n_bad = int((~known).sum())
        first = flat[int(np.flatnonzero(~known)[0])]
        owner = np.repeat(np.arange(len(s.sets)), lengths)
        keep_flat = np.asarray(flat, dtype=object)[known]
        result.sets = [list(a) for a in np.split(keep_flat, np.searchsorted(owner[known], np.arange(1, len(s.sets))))]
        result.dropped["item occurrences without a vector"] = n_bad
        result.notices.append(
            f"{plural(n_bad, 'item occurrence')} in {s.name} {'have' if n_bad > 1 else 'has'} no vector "
            f"(first: {quote(first)}); left out."
        )
    return result
