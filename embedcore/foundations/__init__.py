"""The linear-algebra foundations, written to teach: PCA two ways, standardising new data, random
projections (Johnson-Lindenstrauss), the SVD, autoencoders and feature hashing. scikit-learn and SciPy
do the heavy lifting.

Modules
-------
=================  ==================================================================
data               the experiments' data: a correlated cloud, a photo, news counts
pca                PCA by eigenvectors and greedily; the scaling pitfall
standardising      new data standardised with the training statistics or its own
random_projection  JL projections built block by block, distortion, the bounds
svd                energy, rank-k reconstructions, the layers of a matrix
autoencoders       linear, non-linear, denoising; the contractive penalty
contractive        a contractive autoencoder trained with the penalty, beside plain and denoising
hashing            a hashing matrix and its inner-product error against width
=================  ==================================================================
"""

from __future__ import annotations

from .._linalg import pca_basis
from .autoencoders import (
    autoencoder_subspace,
    denoising_panel,
    encoder_jacobian_norm,
    linear_autoencoder_vs_pca,
    principal_angles_deg,
    reconstruction_mse,
    train_autoencoder,
)
from .contractive import AutoencoderComparison, ContractiveAutoencoder, contractive_comparison, jacobian_penalty
from .data import (
    correlated_cloud,
    grey_photo,
    news_counts,
    sample_rows,
)
from .hashing import (
    hash_matrix,
    hashed_inner_product_error,
    inverse_sqrt_trend,
)
from .pca import (
    ScalingPCA,
    axis_angle_deg,
    eigen_pca,
    greedy_pca,
    line_angles_deg,
    rescale_feature,
    scaling_experiment,
    standardise,
)
from .random_projection import (
    JL_BLOCK,
    PROJECTION_KINDS,
    OrthonormalState,
    distance_distortion,
    distance_pairs,
    extend_orthonormal,
    jl_bound_curve,
    jl_failure_bounds,
    jl_failure_curve,
    jl_min_dim,
    jl_pair_failure,
    jl_seed_dim,
    k_grid,
    nested_random_projection,
    orthonormal_frame,
    orthonormal_projection,
    pca_vs_jl,
    prefix_distortion,
    projection_block,
    random_projection,
    share_within,
    worst_distortion,
)
from .standardising import (
    BatchModel,
    batch_experiment,
    draw_batch,
    fit_batch_model,
    fit_standardiser,
    place_batch,
    predict_batch,
    split_rows,
    standardise_with,
)
from .svd import (
    SvdLayers,
    energy_profile,
    grey_uint8,
    low_rank,
    rank_k,
    svd_energy,
    svd_layers,
)

__all__ = [
    "pca_basis",
    "standardise",
    "eigen_pca",
    "greedy_pca",
    "jl_min_dim",
    "random_projection",
    "distance_distortion",
    "pca_vs_jl",
    "svd_energy",
    "low_rank",
    "train_autoencoder",
    "autoencoder_subspace",
    "principal_angles_deg",
    "hash_matrix",
    "hashed_inner_product_error",
    "correlated_cloud",
    "grey_photo",
    "news_counts",
    "sample_rows",
    "rescale_feature",
    "axis_angle_deg",
    "line_angles_deg",
    "ScalingPCA",
    "scaling_experiment",
    "k_grid",
    "distance_pairs",
    "JL_BLOCK",
    "projection_block",
    "nested_random_projection",
    "prefix_distortion",
    "share_within",
    "worst_distortion",
    "jl_bound_curve",
    "PROJECTION_KINDS",
    "orthonormal_frame",
    "orthonormal_projection",
    "OrthonormalState",
    "extend_orthonormal",
    "jl_pair_failure",
    "jl_failure_bounds",
    "jl_seed_dim",
    "jl_failure_curve",
    "fit_standardiser",
    "standardise_with",
    "split_rows",
    "BatchModel",
    "fit_batch_model",
    "place_batch",
    "predict_batch",
    "draw_batch",
    "batch_experiment",
    "SvdLayers",
    "svd_layers",
    "rank_k",
    "energy_profile",
    "grey_uint8",
    "reconstruction_mse",
    "linear_autoencoder_vs_pca",
    "denoising_panel",
    "encoder_jacobian_norm",
    "AutoencoderComparison",
    "ContractiveAutoencoder",
    "contractive_comparison",
    "jacobian_penalty",
    "inverse_sqrt_trend",
]
