"""Latent Markov Embedding of playlists, and the baselines it is measured against.

A playlist is a walk through songs. LME gives every song a point in a small
space and makes a transition likelier the closer the next song is:

* dual-point model: song s has an entry point ``u_s`` and an exit point ``v_s``,
  ``P(s | s') = exp(-||u_s - v_s'||^2) / Z(s')``;
* single-point model: one point per song, ``u_s = v_s`` (transitions are
  then nearly symmetric and the space is a map one can read).

``Z(s') = sum_s exp(-||u_s - v_s'||^2)`` sums over every song, ``s'`` itself
included (as in Chen et al. 2012: a song may follow itself, and in the
single-point model, at distance 0, it is always its own likeliest successor;
``exclude_self=True`` forbids it). Training maximises the average
log-likelihood per observed transition minus ``reg / S`` times the squared
lengths of all points, ``||U||^2 + ||V||^2`` (S songs), by gradient ascent.

The estimator is composed of parts that can be used, tested and replaced alone, the
way openTSNE composes t-SNE:

=====================  =====================================================================
:mod:`.data`           playlists to songs, transition counts, the tag matrix, held-out transitions
:mod:`.objective`      the objective and its gradient with Z exact or approximate; log Z alone
:mod:`.near_field`     the songs the approximate Z sums exactly, and its landmarks
:mod:`.start`          the random start and the lift (train in more dimensions, then project)
:mod:`.optimizer`      a generic gradient ascent; its callback can stop it, keeping the work so far
:mod:`.model`          :class:`LME`, whose ``fit`` composes the parts above
:mod:`.baselines`      uniform, unigram and Witten-Bell bigram scores of the same transitions
:mod:`.hmm`            a hidden Markov model (K states, Baum-Welch) scored on the same transitions
:mod:`.cold_start`     songs kept out of training, placed by their tags' mean, at 0 or at random, scored
:mod:`.reading`        a fitted model's map aligned to the truth, next songs, coordinates
:mod:`.synthetic`      playlists sampled from a planted LME, random walks on a graph
=====================  =====================================================================

Every name below can be imported from ``embedcore.playlists``.
"""

from ..compare import procrustes_align
from .baselines import BaselineScores, baseline_log_likelihoods
from .cold_start import cold_start_scores
from .data import (
    ScoredTransitions,
    TagMatrix,
    check_playlists,
    play_counts,
    scored_transitions,
    song_index,
    song_tag_labels,
    split_playlists,
    tag_matrix,
    transition_counts,
)
from .hmm import PlaylistHMM, hmm_parameter_count
from .model import LME
from .near_field import NearField, near_field
from .objective import (
    MAX_EXACT_Z_SONGS,
    Evaluation,
    Objective,
    TagPrior,
    Transitions,
    approximate_log_partition,
    approximate_objective,
    exact_log_partition,
    exact_objective,
    PartitionCost,
    partition_cost,
    penalise,
    uses_approximation,
)
from .optimizer import AscentResult, OptimizationInterrupt, Stopped, gradient_ascent
from .reading import align_to_truth, next_songs, song_coordinates
from .start import lift, project, random_start
from .synthetic import make_planted_playlists, random_walk_playlists

__all__ = [
    "LME",
    "MAX_EXACT_Z_SONGS",
    "PartitionCost",
    "partition_cost",
    "transition_counts",
    "make_planted_playlists",
    "random_walk_playlists",
    "split_playlists",
    "song_index",
    "scored_transitions",
    "ScoredTransitions",
    "BaselineScores",
    "baseline_log_likelihoods",
    "PlaylistHMM",
    "hmm_parameter_count",
    "cold_start_scores",
    "play_counts",
    "song_tag_labels",
    "procrustes_align",
    "align_to_truth",
    "next_songs",
    "song_coordinates",
    # the parts LME.fit composes
    "check_playlists",
    "tag_matrix",
    "TagMatrix",
    "Transitions",
    "TagPrior",
    "Evaluation",
    "Objective",
    "exact_objective",
    "approximate_objective",
    "exact_log_partition",
    "approximate_log_partition",
    "penalise",
    "uses_approximation",
    "NearField",
    "near_field",
    "random_start",
    "lift",
    "project",
    "gradient_ascent",
    "AscentResult",
    "OptimizationInterrupt",
    "Stopped",
]
