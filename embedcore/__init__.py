"""embedcore: the computation behind Embedding Lab.

Estimators and helpers for classic embedding techniques, written the way
scikit-learn writes estimators. Nothing here draws or imports Streamlit.
"""

from .io import (
    DataError,
    read_documents,
    read_playlists,
    read_sets,
    read_table,
    read_vectors,
)

__version__ = "0.1.0"

__all__ = [
    "DataError",
    "read_documents",
    "read_playlists",
    "read_sets",
    "read_table",
    "read_vectors",
    "__version__",
]
