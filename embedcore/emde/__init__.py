"""EMDE: sketches of sets of vectors as additive, fixed-width density estimates.

Item vectors live in an embedding space. EMDE cuts that space with ``K``
random hyperplanes, which split it into up to ``2**K`` regions (buckets),
and repeats the cut ``N`` times independently. An item becomes the one-hot
code of its bucket in every partitioning (``N`` ones in ``N * 2**K``
columns); a set of items becomes the sum of its items' codes, weighted if
the set carries weights. The sketch is a histogram of the set over coarse,
overlapping regions: a density estimate. Sketches add: the sketch of two
sets taken together with their multiplicities (a multiset union) is the
sum of their sketches; a plain union, counting a shared item once, is not.

Offsets. Each hyperplane ``v . x = c`` has a random isotropic normal ``v``
(standard Gaussian, so every direction is equally likely). Its offset ``c``
is drawn from the data so that every cut goes through the items:

* ``offsets="data"``: the plane passes through one item chosen uniformly at
  random (``c = v . x_i``), so cuts fall more often where items are dense;
* ``offsets="quantile"``: ``c`` is the ``q``-quantile of the items'
  projections on ``v`` with ``q`` uniform in [0.05, 0.95], so no cut lands
  in the sparse tails.

Use. ``EMDE().fit(item_vectors)`` draws the planes; ``transform(vectors)``
gives item sketches (a scikit-learn transformer: vectors in, a row per
vector out); ``sketch(weights)`` gives set sketches from a set-by-item
weight matrix over the fitted items. :class:`EMDEVectorizer` takes sets of
item names and fits in a :class:`~sklearn.pipeline.Pipeline`.

Modules
-------
=============  ==================================================================
estimator      :class:`EMDE` and :class:`EMDEVectorizer`; ``sets_to_matrix``
evaluation     bucket statistics; the benchmark under the lab's protocol
               (``SetBenchmark``, ``benchmark_sides``, ``width_sides``,
               ``norm_sides``, item vectors learned in fold by
               ``item_vector_makers``)
views          what a page shows of a fitted EMDE: ``item_view``, ``partition_view``,
               ``hyperplanes_in_view``, ``sketch_grid``, ``occupied_grid``,
               ``occupied_buckets``, ``additivity``
export         sketches as ``.npz`` or CSV files
=============  ==================================================================
"""

from .._sparse import stack_rows
from .estimator import (
    EMDE,
    MAX_HYPERPLANES,
    MAX_OCCUPIED_HYPERPLANES,
    EMDEVectorizer,
    sets_to_matrix,
)
from .evaluation import (
    NORMS,
    PROTOCOL_C_GRID,
    SEED_GRID,
    WIDTH_BUDGET,
    WIDTH_KS,
    SetBenchmark,
    benchmark_sides,
    item_vector_makers,
    norm_sides,
    pmi_item_vectors,
    width_sides,
    SharingPairs,
    bucket_statistics,
    pair_sharing,
    sharing_pairs,
    encoding_name,
    set_encodings,
    statistics_grid,
    word2vec_item_vectors,
)
from .export import sketches_csv, sketches_npz
from .views import (
    Additivity,
    ItemView,
    PartitionView,
    additivity,
    bucket_sizes,
    hyperplanes_in_view,
    item_view,
    items_told_apart,
    max_regions,
    occupied_buckets,
    occupied_grid,
    partition_view,
    sketch_grid,
)

__all__ = [
    "EMDE",
    "EMDEVectorizer",
    "sets_to_matrix",
    "stack_rows",
    "bucket_statistics",
    "SharingPairs",
    "sharing_pairs",
    "pair_sharing",
    "statistics_grid",
    "set_encodings",
    "encoding_name",
    "SetBenchmark",
    "benchmark_sides",
    "item_vector_makers",
    "norm_sides",
    "pmi_item_vectors",
    "width_sides",
    "PROTOCOL_C_GRID",
    "WIDTH_BUDGET",
    "WIDTH_KS",
    "NORMS",
    "ItemView",
    "item_view",
    "PartitionView",
    "partition_view",
    "occupied_buckets",
    "bucket_sizes",
    "items_told_apart",
    "max_regions",
    "hyperplanes_in_view",
    "sketch_grid",
    "occupied_grid",
    "Additivity",
    "additivity",
    "sketches_npz",
    "sketches_csv",
    "MAX_HYPERPLANES",
    "MAX_OCCUPIED_HYPERPLANES",
    "SEED_GRID",
    "word2vec_item_vectors",
]
