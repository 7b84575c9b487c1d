"""embedcore: the computation behind Embedding Lab.

Estimators and helpers for classic embedding techniques, written the way
scikit-learn writes estimators. Nothing here draws or imports Streamlit, and
the heavy optional engines (gensim, UMAP, openTSNE, numba) are imported only
by the functions that use them.
"""

from .compare import compare_embeddings, neighbour_overlap, point_neighbours, procrustes
from .emde import EMDE, EMDEVectorizer
from .io import (
    DataError,
    read_documents,
    read_item_sets,
    read_playlists,
    read_sets,
    read_table,
    read_vectors,
)
from .manifold import LLE
from .maps import embed
from .metrics import continuity, neighbour_recall, trustworthiness
from .playlists import LME
from .spectral import SpectralCategoryEncoder
from .words import LabelEmbedding, PMIWordVectors

__version__ = "0.1.0"

__all__ = [
    "DataError",
    "EMDE",
    "EMDEVectorizer",
    "LLE",
    "LME",
    "LabelEmbedding",
    "PMIWordVectors",
    "SpectralCategoryEncoder",
    "compare_embeddings",
    "continuity",
    "embed",
    "neighbour_recall",
    "neighbour_overlap",
    "point_neighbours",
    "procrustes",
    "read_documents",
    "read_item_sets",
    "read_playlists",
    "read_sets",
    "read_table",
    "read_vectors",
    "trustworthiness",
    "__version__",
]
