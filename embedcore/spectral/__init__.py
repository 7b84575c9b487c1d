"""Spectral encoding of categorical features, and spectral clustering of the same graph.

A categorical column's values become the nodes of a graph whose edge weights
say how alike two values are (a kernel, given or learned from the data). The
normalised graph Laplacian ``L = I - D^{-1/2} A D^{-1/2}`` has eigenvalues in
[0, 2]; its eigenvectors with small eigenvalues vary slowly over the graph, so
alike values get alike coordinates. Keeping the smooth eigenvectors below the
largest gap in the spectrum gives each value a short dense code.

Learned kernels compare, for every pair of category values, the distribution
of a numeric target within each value: a symmetric Kullback-Leibler
divergence of smoothed histograms, or the 1-Wasserstein distance. The
affinity is ``exp(-gamma * distance)`` with a zero diagonal.

Modules
-------
==========  =====================================================================
graph       the normalised Laplacian and its spectrum, components, the eigengap,
            the Fiedler vector and sweep cuts, k-way spectral clustering
kernels     distances between categories' target distributions, the affinity
            exp(-gamma d), and the kernels one-hot and label encoding amount to
encoder     :class:`SpectralCategoryEncoder` and how many eigenvectors it keeps
evaluation  the gamma sweep, codable columns, the downstream comparison
==========  =====================================================================
"""

from __future__ import annotations

from .encoder import (
    CodeChoice,
    SpectralCategoryEncoder,
    category_frequencies,
    choose_code,
    code_agreement,
    code_columns,
    spectral_code,
)
from .evaluation import (
    GAMMA_SCALES,
    InFoldSpectralCode,
    candidate_columns,
    compare_category_encodings,
    complete_rows,
    gamma_sweep,
)
from .graph import (
    EIGENGAP_WINDOW,
    check_affinity,
    code_spectrum,
    connected_components,
    eigengap,
    fiedler_order,
    fiedler_sweep,
    fiedler_vector,
    laplacian_spectrum,
    lowest_conductance_cut,
    n_connected_components,
    normalized_laplacian,
    spectral_clusters,
    sweep,
    tie_order,
)
from .kernels import (
    all_alike_kernel,
    category_distributions,
    category_histograms,
    kernel_from_distances,
    median_distance,
    one_hot_kernel,
    order_distances,
    path_spectrum,
    smoothed_distributions,
    symmetric_kl_distances,
    symmetric_kl_from_counts,
    wasserstein_distances,
    wasserstein_from_counts,
)

__all__ = [
    "check_affinity",
    "normalized_laplacian",
    "laplacian_spectrum",
    "code_spectrum",
    "EIGENGAP_WINDOW",
    "n_connected_components",
    "connected_components",
    "code_columns",
    "CodeChoice",
    "choose_code",
    "eigengap",
    "gamma_sweep",
    "candidate_columns",
    "complete_rows",
    "median_distance",
    "category_distributions",
    "wasserstein_distances",
    "wasserstein_from_counts",
    "symmetric_kl_distances",
    "symmetric_kl_from_counts",
    "category_histograms",
    "smoothed_distributions",
    "one_hot_kernel",
    "all_alike_kernel",
    "order_distances",
    "path_spectrum",
    "spectral_code",
    "code_agreement",
    "kernel_from_distances",
    "category_frequencies",
    "SpectralCategoryEncoder",
    "fiedler_vector",
    "fiedler_order",
    "fiedler_sweep",
    "lowest_conductance_cut",
    "spectral_clusters",
    "sweep",
    "tie_order",
    "compare_category_encodings",
    "InFoldSpectralCode",
    "GAMMA_SCALES",
]
